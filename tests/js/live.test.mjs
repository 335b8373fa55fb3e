// The class link's refusals (ClassLink in bpeviz/web/live/live.js), with a stand-in socket and
// Node's mock clock: what the class bar is left saying. Run by tests/test_web_js.py, which
// writes the script to $BPEVIZ_JS_CASES.
import assert from "node:assert/strict";
import { join } from "node:path";
import { mock, test } from "node:test";

const folder = process.env.BPEVIZ_JS_CASES;
assert.ok(folder, "BPEVIZ_JS_CASES is not set: run these through tests/test_web_js.py");
const web = await import(join(folder, "bpeviz.mjs"));

class StandInSocket {
  static OPEN = 1;
  constructor() {
    this.readyState = 0;
    this.listeners = {};
  }
  addEventListener(name, listener) {
    (this.listeners[name] ||= []).push(listener);
  }
  fire(name, event) {
    for (const listener of this.listeners[name] || []) listener(event);
  }
  send() {}
  close() {}
}

const noStorage = { getItem: () => null, setItem: () => {} };
Object.assign(globalThis, {
  WebSocket: StandInSocket,
  location: { protocol: "http:", host: "localhost" },
  sessionStorage: noStorage,
  localStorage: noStorage,
});

const A_LONG_WHILE_MS = 60_000; // past any sentence's time in the bar

// A student's class link on Node's mock clock: `act(link)`, then a long while passes.
function afterAWhile(act) {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const link = new web.ClassLink("ABCDEF", "student");
    act(link);
    mock.timers.tick(A_LONG_WHILE_MS);
    return link;
  } finally {
    mock.timers.reset();
  }
}

test("a passing refusal leaves the bar after a while", () => {
  const link = afterAWhile((link) => {
    link.hear({ type: "error", message: "Too many messages: slow down.", refused: "nick" });
    assert.equal(link.problem, "Too many messages: slow down.");
  });
  assert.equal(link.problem, "");
});

test("a refusal that ends the connection stays said (no retry will replace it)", () => {
  const full = "This class is full.";
  const link = afterAWhile((link) => {
    link.hear({ type: "error", message: full, fatal: true });
    link.socket.fire("close", { code: 1008, reason: full });
  });
  assert.equal(link.status, "refused");
  assert.equal(link.problem, full);
});

test("the class's end stays said", () => {
  const link = afterAWhile((link) => {
    link.hear({ type: "error", message: "This question is closed.", refused: "answer" });
    link.hear({ type: "ended", message: "This class has ended." });
  });
  assert.equal(link.status, "ended");
  assert.equal(link.problem, "This class has ended.");
});

test("a retry waits longer each time, up to a cap, each wait spread by chance", () => {
  const least = [0, 1, 2, 3, 8, 20].map((tries) => web.retryDelay(tries, () => 0));
  const most = [0, 1, 2, 3, 8, 20].map((tries) => web.retryDelay(tries, () => 1));
  assert.deepEqual(most, [500, 1000, 2000, 4000, 15000, 15000]); // doubling from 0.5 s to 15 s
  assert.deepEqual(least, most.map((wait) => wait / 2)); // a class's pages do not retry together
});

test("a page whose socket drops says it is reconnecting, and comes back", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const link = new web.ClassLink("ABCDEFGHJ", "student");
    const first = link.socket;
    first.fire("close", { code: 1006, reason: "" }); // the network, not the server
    assert.equal(link.status, "reconnecting");
    mock.timers.tick(1000); // the first wait is at most 0.5 s
    assert.notEqual(link.socket, first);
    link.socket.fire("close", { code: 1008, reason: "This page fell behind the class: reconnecting." });
    assert.equal(link.status, "reconnecting"); // a close the server gave no refusal for: again
    mock.timers.tick(A_LONG_WHILE_MS);
    link.hear({ type: "welcome", connected: 3, score: { right: 0, answered: 0 }, question: null, view: null });
    assert.equal(link.status, "live");
  } finally {
    mock.timers.reset();
  }
});

// A socket the server accepts and then closes (a fault, a restart) before any welcome: each
// retry waits longer than the one before (it is the welcome, not the open, that says the
// class is back).
test("a page whose socket opens and closes again and again waits longer each time", () => {
  mock.timers.enable({ apis: ["setTimeout", "Date"] });
  try {
    const link = new web.ClassLink("ABCDEFGHJ", "student");
    const waits = [];
    for (let round = 0; round < 5; round += 1) {
      const socket = link.socket;
      socket.readyState = StandInSocket.OPEN;
      socket.fire("open", {});
      socket.fire("close", { code: 1011, reason: "The server could not do that." });
      let waited = 0;
      while (link.socket === socket) {
        mock.timers.tick(10);
        waited += 10;
        assert.ok(waited <= A_LONG_WHILE_MS, "no retry came");
      }
      waits.push(waited);
    }
    // at least half of 0.5, 1, 2, 4, 8 s: the 5th wait is past the first's most
    assert.ok(waits[4] >= 4000 && waits[4] > waits[0], `waits ${waits}`);
  } finally {
    mock.timers.reset();
  }
});

for (const [said, last] of [
  ["a fatal refusal", { type: "error", message: "This class is full.", fatal: true }],
  ["the class's end", { type: "ended", message: "This class has ended." }],
]) {
  test(`no new socket after ${said}`, () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    try {
      const link = new web.ClassLink("ABCDEFGHJ", "student");
      const socket = link.socket;
      socket.fire("open", {});
      link.hear(last);
      socket.fire("close", { code: 1000, reason: "" });
      mock.timers.tick(A_LONG_WHILE_MS);
      assert.equal(link.socket, socket);
    } finally {
      mock.timers.reset();
    }
  });
}

// A tab's reconnects name the tab (the server lets its old socket go instead of counting
// another page); another tab names another.
test("a tab's hellos name the same tab across reconnects, another tab's another", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const tabOf = (socket) => {
      let sent = null;
      socket.send = (text) => (sent = JSON.parse(text));
      socket.fire("open", {});
      return sent.tab;
    };
    const link = new web.ClassLink("ABCDEFGHJ", "student");
    const first = tabOf(link.socket);
    link.socket.fire("close", { code: 1006, reason: "" });
    mock.timers.tick(A_LONG_WHILE_MS);
    const again = tabOf(link.socket);
    const other = tabOf(new web.ClassLink("ABCDEFGHJ", "student").socket);
    assert.match(first, /^[0-9a-f]{16,}$/);
    assert.equal(again, first);
    assert.notEqual(other, first);
  } finally {
    mock.timers.reset();
  }
});

// The teacher's views go out at most every 120 ms; the server sends each view to every
// socket of the class, the teacher's too. A slide change shows two views in a row (the class
// bar's, then the new slide's step view, which waits its turn): the echo of the first, heard
// while the second waited, was what went out, so the class stayed on the slide before
// (students at step 0 with the quiz on after slide 3, the projector at slide 4's step 1).
test("the teacher's latest view is the one sent, whatever the server echoes meanwhile", () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  try {
    const link = new web.ClassLink("ABCDEFGHJ", "teacher", "key");
    const sent = [];
    link.socket.readyState = StandInSocket.OPEN;
    link.socket.send = (text) => sent.push(JSON.parse(text));
    const view = (step, quiz) => ({ page: "step", step, when: "after", pieces: false, quiz });
    link.show(view(0, true)); // the bar: the slide before's step view, still on screen
    link.show(view(1, false)); // the new slide's step view: waits its turn
    link.hear({ type: "view", view: sent[0].view }); // the first one, back from the server
    mock.timers.tick(A_LONG_WHILE_MS);
    const last = sent.at(-1).view;
    assert.deepEqual([last.step, last.quiz], [1, false]);
    assert.deepEqual([link.view.step, link.view.quiz], [1, false]);
  } finally {
    mock.timers.reset();
  }
});

test("a following student's step view drawn before the page's run is known follows once it is", () => {
  // Slide 3 of the bundled lesson, on a loaded machine: the student's page switched to the
  // Step page with the teacher's run, its new step view attached before the class bar heard
  // that run, so the view could not follow yet; the bar then hears it (showsRun).
  const link = new web.ClassLink("ABCDEF", "student");
  link.following = true;
  link.run = "tokenize-run";
  link.hear({ type: "view", view: { page: "step", run: "step-run", step: 0, when: "after", pieces: false, quiz: true } });
  const followed = [];
  const stepView = { k: 0, root: { classList: { toggle() {} } }, follow: (view) => followed.push(view) };
  link.attach(stepView);
  assert.deepEqual(followed, []); // another run: not this view's to follow
  link.showsRun("step-run");
  assert.deepEqual(followed.map((view) => [view.run, view.quiz]), [["step-run", true]]);
  link.showsRun("step-run"); // the same run again (another run of the page): nothing more
  assert.equal(followed.length, 1);
});
