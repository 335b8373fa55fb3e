"""Where classes live: the pieces every hub shares (``common``: a socket's inbox, the fan-out to
a class's sockets, the :class:`~bpeviz.classroom.hubs.common.Hub` protocol), the hub in this
process's memory (``memory``), the one in Redis for several workers (``redis_hub``), and the
chooser between them (``choose``, the only module that knows both, so there is no import
cycle). It may import the rest of the classroom only.
"""
