// ---- the step view's panels: the merge card, the counts, the pair table, the chart and the
// vocabulary learned so far. Each is a function of (record, k) that returns a new element.

// The merge card's token: its chip over its id.
function chipWithId(vocab, id, isNew) {
  const box = el("span", "bpe-chipbox");
  box.append(chip(vocab, id, isNew ? "bpe-chip bpe-new" : "bpe-chip"), el("span", "bpe-chipid", `id ${id}`));
  return box;
}

// What merge `number` (1-based) did, in paragraphs: its counts, then how a tie was broken
// when there was one.
function mergeSentences(record, number) {
  const sentences = record.sentences[number - 1];
  const paragraphs = [el("p", "", sentences[SENTENCE.counts])];
  if (sentences[SENTENCE.tie]) {
    const tie = el("p", "bpe-tie");
    tie.append(el("b", "", "Tie."), " ", sentences[SENTENCE.tie]);
    paragraphs.push(tie);
  }
  return paragraphs;
}

// A WordPiece run's card says, at every step, which rule it merges by and how the two differ.
function ruleLine(record) {
  return isWordPiece(record) ? [el("p", "bpe-rule", record.rule_sentence)] : [];
}

function card(record, k) {
  const box = el("div", "bpe-card");
  if (k === 0) {
    const start = record.start;
    box.append(el("h2", "bpe-card-title", "Step 0: no merges yet"), el("p", "", start[START.counts]), el("p", "", start[START.first_merge]), ...ruleLine(record));
    return box;
  }
  const { left, right, made } = mergeOf(record, k);
  const equation = el("div", "bpe-eq");
  equation.append(chipWithId(record.vocab, left), el("span", "bpe-op", "+"), chipWithId(record.vocab, right), el("span", "bpe-op", "→"), chipWithId(record.vocab, made, true));
  box.append(el("h2", "bpe-card-title", `Merge ${number(k)} of ${number(record.merge_count)}`), equation, ...mergeSentences(record, k), ...ruleLine(record));
  return box;
}

function metric(label, value, delta, help) {
  const box = el("div", "bpe-metric");
  box.append(el("div", "bpe-metric-label", label), el("div", "bpe-metric-value", value));
  if (delta) box.append(el("div", `bpe-metric-delta ${delta[1]}`, delta[0]));
  if (help) box.title = help;
  return box;
}

function counts(record, k) {
  const row = el("div", "bpe-metrics");
  const tokens = record.tokens[k];
  const ratio = (n) => (n ? record.text_bytes / n : 0);
  const merge = k ? mergeOf(record, k) : null;
  const change = ratio(tokens) - (k ? ratio(record.tokens[k - 1]) : 0);
  let perToken = "The text's bytes divided by its tokens.";
  if (record.end_of_word) perToken += ` Each word's ${END_OF_WORD} marker is a token too, so this starts below 1.`;
  row.append(
    metric("Tokens in the text", number(tokens), merge ? [`↓ ${number(merge.replacements)}`, "bpe-good"] : null),
    metric("Bytes per token", ratio(tokens).toFixed(3), merge ? [`${change >= 0 ? "↑ +" : "↓ "}${change.toFixed(3)}`, change >= 0 ? "bpe-good" : "bpe-bad"] : null, perToken),
    metric("Vocabulary size", number(vocabSizeAt(record, k)), null, isWordPiece(record) ? "[UNK], the characters and their ## forms, + one per merge whose token is new" : "Base symbols + k merges"),
    metric("Merges done", `${number(k)} of ${number(record.merge_count)}`),
  );
  return row;
}

// The vocabulary after k merges: a WordPiece merge whose token existed adds nothing.
function vocabSizeAt(record, k) {
  const existed = (record.existed || []).filter((merge) => merge <= k).length;
  return record.base + k - existed;
}

function pairTable(record, k) {
  const box = el("div", "bpe-pairs");
  const table = k ? k - 1 : 0;
  const chosen = record.merge_count ? mergeOf(record, Math.max(k, 1)) : null;
  box.append(el("h3", "", k ? `Pairs before merge ${number(k)}` : "Pairs now"));
  const rows = topRows(record, table);
  if (isWordPiece(record)) return scoreTable(record, box, rows, table, chosen, k);
  if (!rows.length) {
    box.append(el("p", "bpe-note", "No pairs: every piece of the text is a single token."));
    return box;
  }
  const grid = el("table", "bpe-pair-table");
  const head = el("tr");
  for (const name of ["#", "left + right", "count"]) head.append(el("th", "", name));
  head.append(el("th", "bpe-sr-only", "note")); // read by a screen reader, not shown
  grid.append(head);
  const top = rows[0].count;
  const tied = record.tied[table];
  rows.forEach(({ left, right, count }, row) => {
    const line = el("tr");
    line.dataset.pair = `${left},${right}`;
    let note = "";
    if (row === 0 && chosen && chosen.left === left && chosen.right === right) note = `◀ merge ${number(Math.max(k, 1))}`;
    else if (tied > 1 && count === top) note = "tied";
    const pair = el("td", "bpe-pair");
    pair.textContent = `${fullLabel(record.vocab, left)} + ${fullLabel(record.vocab, right)}`;
    const bar = el("td", "bpe-count");
    const fill = el("span", "bpe-bar");
    fill.style.width = `${Math.max(2, (100 * count) / top)}%`;
    bar.append(fill, el("span", "bpe-count-n", number(count)));
    line.append(el("td", "bpe-rank", row + 1), pair, bar, el("td", "bpe-note", note));
    grid.append(line);
  });
  box.append(grid);
  box.append(el("p", "bpe-caption", `Top ${rows.length} pairs, best first: the top row is the pair the merge picks; ties are marked.`));
  return box;
}

// A WordPiece run's pair table: each pair's count, its tokens' counts and its score (a fraction
// and a decimal), ordered by the run's rule; the rows that tie with the top one are marked.
function scoreTable(record, box, rows, table, chosen, k) {
  if (!rows.length) {
    box.append(el("p", "bpe-note", "No pairs: every word is a single token."));
    return box;
  }
  const grid = el("table", "bpe-pair-table bpe-score-table");
  const head = el("tr");
  for (const name of ["#", "left + right", "count", "count(a)", "count(b)", "score"]) head.append(el("th", "", name));
  head.append(el("th", "bpe-sr-only", "note"));
  grid.append(head);
  const tied = record.tied[table];
  const scored = byScore(record);
  rows.forEach((row, index) => {
    const line = el("tr");
    line.dataset.pair = `${row.left},${row.right}`;
    let note = "";
    if (index === 0 && chosen && chosen.left === row.left && chosen.right === row.right) note = `◀ merge ${number(Math.max(k, 1))}`;
    else if (tied > 1 && sameValue(record, row, rows[0])) note = "tied";
    const pair = el("td", "bpe-pair");
    pair.textContent = `${fullLabel(record.vocab, row.left)} + ${fullLabel(record.vocab, row.right)}`;
    const score = el("td", scored ? "bpe-by" : "", scoreText(row));
    line.append(el("td", "bpe-rank", index + 1), pair, el("td", scored ? "bpe-count-n" : "bpe-count-n bpe-by", number(row.count)), el("td", "", number(row.left_count)), el("td", "", number(row.right_count)), score, el("td", "bpe-note", note));
    grid.append(line);
  });
  box.append(grid);
  const by = scored ? "by score, count / (count(a) × count(b))" : "by count (the score is shown, and plays no part)";
  const ties = `ties, marked, go by the rule ${quoted(record.rule)}`;
  box.append(el("p", "bpe-caption", `Top ${rows.length} pairs ${by}, best first: the top row is the pair the merge picks; ${ties}.`));
  return box;
}

// A line chart's frame (the step view's tokens, Unigram's loss): its SVG, `add(tag,
// attributes, text)` to draw in it, and its two axes, labelled at their ends: `labels` are
// the y axis's top and bottom, then the x axis's first and last.
function chartFrame(className, width, height, pad, labels) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", className);
  svg.setAttribute("role", "img");
  const add = (tag, attributes, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  const [top, bottom, first, last] = labels;
  add("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, class: "bpe-axis" });
  add("line", { x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom, class: "bpe-axis" });
  add("text", { x: pad.left - 4, y: pad.top + 8, "text-anchor": "end", class: "bpe-tick" }, top);
  add("text", { x: pad.left - 4, y: height - pad.bottom, "text-anchor": "end", class: "bpe-tick" }, bottom);
  add("text", { x: pad.left, y: height - 8, class: "bpe-tick" }, first);
  add("text", { x: width - pad.right, y: height - 8, "text-anchor": "end", class: "bpe-tick" }, last);
  return { svg, add };
}

// Tokens in the text after each merge: {element, svg, move(k)}; the marker moves, the line is
// drawn once.
function chart(record) {
  const width = 360;
  const height = 150;
  const pad = { left: 56, right: 10, top: 10, bottom: 30 };
  const tokens = record.tokens;
  const merges = record.merge_count;
  const name = (k) =>
    `Chart: tokens in the text after each merge, from ${number(tokens[0])} at step 0 to ${number(tokens[merges])} after ${counted(merges, "merge")}; at step ${number(k)}: ${number(tokens[k])}.`;
  const most = Math.max(...tokens, 1);
  const least = Math.min(...tokens);
  const x = (k) => pad.left + ((width - pad.left - pad.right) * k) / Math.max(merges, 1);
  const y = (n) => pad.top + ((height - pad.top - pad.bottom) * (most - n)) / Math.max(most - least, 1);
  const step = Math.max(1, Math.floor(tokens.length / 400));
  const points = [];
  for (let k = 0; k < tokens.length; k += step) points.push(`${x(k).toFixed(1)},${y(tokens[k]).toFixed(1)}`);
  points.push(`${x(merges).toFixed(1)},${y(tokens[merges]).toFixed(1)}`);
  const labels = [number(most), number(least), "0", `${number(merges)} merges`];
  const { svg, add } = chartFrame("bpe-chart", width, height, pad, labels);
  add("polyline", { points: points.join(" "), class: "bpe-line" });
  const marker = add("circle", { r: 5, class: "bpe-marker" });
  // The chart's title is HTML above it, not SVG text: it then takes the page's type size and
  // never collides with the axis labels, whose size presentation mode raises.
  const element = el("figure", "bpe-chart-box");
  element.append(el("figcaption", "bpe-chart-title", "Tokens in the text after each merge"), svg);
  return {
    element,
    svg,
    move(k) {
      marker.setAttribute("cx", x(k));
      marker.setAttribute("cy", y(tokens[k]));
      svg.setAttribute("aria-label", name(k));
    },
  };
}

const VOCAB_ROWS = 60;

// rows: a Map of merge -> its <tr>, kept across steps (a row never changes).
function vocabTable(record, k, rows) {
  const box = el("div", "bpe-vocab");
  box.append(el("h3", "", "Vocabulary learned so far"));
  if (!k) {
    const what = isWordPiece(record) ? "[UNK], the characters and their ## forms" : "base symbols";
    box.append(el("p", "bpe-caption", `Nothing learned yet: the vocabulary is the ${record.base} ${what}.`));
    return box;
  }
  const shown = Math.min(k, VOCAB_ROWS);
  const grid = el("table", "bpe-vocab-table");
  const head = el("tr");
  for (const name of ["merge", "id", "token", "left", "right", "count"]) head.append(el("th", "", name));
  grid.append(head);
  const vocab = record.vocab;
  for (let merge = k; merge > k - shown; merge--) {
    let line = rows.get(merge);
    if (!line) {
      const { left, right, made, count } = mergeOf(record, merge);
      line = el("tr");
      line.dataset.id = made;
      line.title = "Inspect this token";
      for (const value of [number(merge), made, fullLabel(vocab, made), fullLabel(vocab, left), fullLabel(vocab, right), number(count)]) line.append(el("td", "", value));
      rows.set(merge, line);
    }
    grid.append(line);
  }
  const scroll = scrollBox("bpe-vocab-scroll", "Vocabulary learned so far");
  scroll.append(grid);
  box.append(scroll);
  if (k > shown) box.append(el("p", "bpe-caption", `The newest ${shown} of ${counted(k, "merge")}; the CSV below has them all.`));
  return box;
}

// What a screen reader hears on each step: "Merge 5 of 256: t + h → th; 4,541 tokens."
function stepAnnouncement(record, k, when) {
  const tokens = `${counted(record.tokens[k], "token")} in the text`;
  if (!k) return `Step 0 of ${number(record.merge_count)}: no merges yet; ${tokens}.`;
  const { left, right, made } = mergeOf(record, k);
  const vocab = record.vocab;
  const merge = `Merge ${number(k)} of ${number(record.merge_count)}: ${fullLabel(vocab, left)} + ${fullLabel(vocab, right)} → ${fullLabel(vocab, made)}`;
  if (when === "before") return `${merge}; before it, ${counted(record.tokens[k - 1], "token")} in the text.`;
  return `${merge}; ${tokens}.`;
}

// The text's tokens as one line of text, in reading order, for a screen reader (or anyone):
// {element, show(vocab, ids)}, under every box of a text's tokens (the step view and
// mountTokens); `name` names its box apart where a page has two. Written only while the
// disclosure is open (the text can hold thousands of tokens); its summary always says how
// many there are.
function tokenReader(name = "The tokens as text") {
  const element = el("details", "bpe-read");
  const summary = el("summary");
  const text = scrollBox("bpe-read-tokens", name);
  element.append(summary, text);
  let shown = { vocab: {}, ids: [] };
  const write = () => {
    const { vocab, ids } = shown;
    summary.textContent = `Read the tokens as text: ${counted(ids.length, "token")} in order, between | marks`;
    text.textContent = element.open ? ids.map((id) => fullLabel(vocab, id)).join(" | ") : "";
  };
  element.addEventListener("toggle", write);
  return {
    element,
    show(vocab, ids) {
      shown = { vocab, ids };
      write();
    },
  };
}
