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
