"""A live class: the teacher drives, every student's screen follows, and the class's quiz
answers are counted on the projector.

The recipe:

1. The teacher's session starts a class for its run (:meth:`Hub.create`): a short code
   (:mod:`.codes`) and a key that only the teacher's browser holds.
2. Every browser in the class opens one WebSocket (:mod:`.routes`). The teacher's view
   (page, step, before/after, pieces, quiz) goes up it; the hub (:mod:`.hubs`) passes it on
   to every student, whose step view applies it in the browser: no script rerun.
3. A class quiz question opens at the teacher's step; each student answers once; the
   teacher sees the count and the spread live, and reveals the answer to all.

:mod:`.state` is the class itself, with no I/O (unit-tested without Streamlit or a
server); :mod:`.hubs` keeps classes in the process's memory, or in Redis when several
worker processes serve one class. The classroom imports nothing else of bpeviz: it carries a
run as JSON and never trains (``tests/test_layers.py``); the app's :mod:`bpeviz.app.live`
and ``server.py`` use it.
"""
