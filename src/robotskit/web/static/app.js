// The robots.txt tester page. Everything the file, the URLs or a server sends is text: it is put
// into the page with textContent and setAttribute only, never parsed as markup.
"use strict";

(() => {
  const DEBOUNCE_MS = 250;
  const MAX_ROWS_SHOWN = 300; // URL rows rendered in the grid (the API answers for all of them)
  const AI_CATEGORIES = new Set(["ai-training", "ai-answers"]);

  const $ = (id) => document.getElementById(id);
  const robots = $("robots"), urls = $("urls"), agents = $("agents"), profile = $("profile");
  const backdrop = $("backdrop"), gutter = $("gutter"), statusLine = $("status");

  const state = {
    lint: new Map(), // line -> [finding]
    deciding: null, // the deciding line of the chosen cell, highlighted in the editor
    focusLine: null, // the line a "line N" button went to
    selected: null, // {url, agent} of the chosen grid cell
    verdicts: [],
    baseline: null, // {text, label}
    crawlers: [],
    audit: null,
    seq: 0,
    explainSeq: 0,
    lineHeight: 20,
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function lines(textarea) {
    const seen = new Set();
    const out = [];
    for (const raw of textarea.value.split("\n")) {
      const item = raw.trim();
      if (item && !item.startsWith("#") && !seen.has(item)) {
        seen.add(item);
        out.push(item);
      }
    }
    return out;
  }

  function setStatus(text, isError) {
    statusLine.textContent = text;
    statusLine.classList.toggle("error", Boolean(isError));
  }

  async function post(path, body, signal) {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
    let data;
    try {
      data = await response.json();
    } catch (err) {
      throw new Error(`${path}: HTTP ${response.status}`);
    }
    if (!response.ok) throw new Error(data && data.error ? data.error : `HTTP ${response.status}`);
    return data;
  }

  // ---- the editor: a textarea over a backdrop of line boxes (highlight) beside a gutter (numbers, lint)

  function measure() {
    const probe = el("div", { class: "line" }, "x");
    backdrop.append(probe);
    state.lineHeight = probe.getBoundingClientRect().height || 20;
    probe.remove();
  }

  function renderEditor() {
    const total = robots.value.split("\n").length;
    const first = Math.max(1, Math.floor(robots.scrollTop / state.lineHeight) - 20);
    const last = Math.min(total, first + Math.ceil(robots.clientHeight / state.lineHeight) + 40);
    const back = document.createDocumentFragment();
    const side = document.createDocumentFragment();
    for (let n = first; n <= last; n++) {
      const top = `${(n - 1) * state.lineHeight}px`;
      const isDeciding = state.deciding === n;
      const isFocus = state.focusLine === n;
      const line = el("div", {
        class: `line${isDeciding ? " deciding" : ""}${isFocus ? " focus" : ""}`,
        "data-line": n,
        "data-deciding-line": isDeciding ? n : null,
        "data-focus-line": isFocus ? n : null,
      });
      line.style.top = top;
      back.append(line);
      const found = state.lint.get(n);
      const num = el("div", { class: isDeciding ? "num deciding" : "num" }, String(n));
      num.style.top = top;
      if (found) {
        const worst = found.some((f) => f.severity === "error") ? "error" : "warning";
        const label = found.map((f) => `${f.rule}: ${f.message}${f.hint ? ` (${f.hint})` : ""}`).join("\n");
        num.prepend(el("span", { class: `lint-marker ${worst}`, "data-lint-line": n, title: label }, found[0].rule + (found.length > 1 ? "+" : "")));
      }
      side.append(num);
    }
    backdrop.replaceChildren(back);
    gutter.replaceChildren(side);
    const height = `${total * state.lineHeight + 40}px`;
    backdrop.style.height = height;
    gutter.style.height = height;
    syncScroll();
  }

  function syncScroll() {
    backdrop.style.transform = `translate(${-robots.scrollLeft}px, ${-robots.scrollTop}px)`;
    gutter.style.transform = `translateY(${-robots.scrollTop}px)`;
  }

  function showLine(n, focusOnly) {
    if (focusOnly) state.focusLine = n;
    else state.deciding = n;
    if (n) {
      const target = (n - 1) * state.lineHeight;
      if (target < robots.scrollTop || target > robots.scrollTop + robots.clientHeight - 2 * state.lineHeight) {
        robots.scrollTop = Math.max(0, target - robots.clientHeight / 3);
      }
    }
    renderEditor();
  }

  function selectLine(n) {
    const text = robots.value;
    let start = 0;
    for (let i = 1; i < n; i++) start = text.indexOf("\n", start) + 1;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    robots.focus();
    robots.setSelectionRange(start, end);
    showLine(n, true);
  }

  function renderLint(findings) {
    state.lint = new Map();
    for (const f of findings) {
      if (!state.lint.has(f.line)) state.lint.set(f.line, []);
      state.lint.get(f.line).push(f);
    }
    $("lint-count").textContent = findings.length ? `(${findings.length})` : "(clean)";
    const items = findings.map((f) =>
      el(
        "li",
        { class: `finding ${f.severity}` },
        el("button", { type: "button", class: "goto", "data-goto-line": f.line, title: "show the line" }, f.line ? `line ${f.line}` : "file"),
        " ",
        el("code", { class: "rule-id" }, f.rule),
        " ",
        el("span", { class: "message" }, f.message),
        f.hint ? el("span", { class: "fix" }, f.hint) : null,
      ),
    );
    $("lint").replaceChildren(...items);
    renderEditor();
  }

  // ---- the grid

  function cellLabel(v) {
    if (v.verdict === "error") return "error";
    return v.line ? `${v.verdict} · L${v.line}` : `${v.verdict} · no rule`;
  }

  function renderGrid(verdicts, agentList, urlList) {
    state.verdicts = verdicts;
    const wrap = $("grid");
    if (!agentList.length || !urlList.length) {
      wrap.replaceChildren(el("p", { class: "hint" }, "Type at least one URL and one agent."));
      return;
    }
    const byKey = new Map(verdicts.map((v) => [`${v.url}\u0000${v.agent}`, v]));
    const head = el("tr", {}, el("th", { scope: "col" }, "URL \\ agent"), ...agentList.map((a) => el("th", { scope: "col" }, a)));
    const rows = urlList.slice(0, MAX_ROWS_SHOWN).map((url, r) =>
      el(
        "tr",
        {},
        el("th", { scope: "row", class: "url" }, url),
        ...agentList.map((agent, c) => {
          const v = byKey.get(`${url}\u0000${agent}`);
          if (!v) return el("td", {}, "");
          const chosen = state.selected && state.selected.url === url && state.selected.agent === agent;
          return el(
            "td",
            {
              class: `cell ${v.verdict}${chosen ? " selected" : ""}`,
              tabindex: 0,
              role: "button",
              "aria-pressed": chosen ? "true" : "false",
              "data-url": url,
              "data-agent": agent,
              "data-verdict": v.verdict,
              "data-line": v.line ?? "",
              "data-row": r,
              "data-col": c,
              "aria-label": `${agent} on ${url}: ${v.verdict}${v.line ? `, line ${v.line}` : ""}`,
              title: v.reason || v.error || "",
            },
            cellLabel(v),
          );
        }),
      ),
    );
    const table = el("table", { class: "grid" }, el("thead", {}, head), el("tbody", {}, ...rows));
    const parts = [table];
    if (urlList.length > MAX_ROWS_SHOWN) {
      parts.push(el("p", { class: "hint" }, `Showing the first ${MAX_ROWS_SHOWN} of ${urlList.length} URLs.`));
    }
    wrap.replaceChildren(...parts);
  }

  async function choose(cell) {
    const url = cell.getAttribute("data-url"), agent = cell.getAttribute("data-agent");
    state.selected = { url, agent };
    for (const other of document.querySelectorAll(".cell.selected")) {
      other.classList.remove("selected");
      other.setAttribute("aria-pressed", "false");
    }
    cell.classList.add("selected");
    cell.setAttribute("aria-pressed", "true");
    const line = Number(cell.getAttribute("data-line")) || null;
    showLine(line);
    await explain(url, agent);
  }

  async function explain(url, agent) {
    const box = $("explain");
    const seq = ++state.explainSeq;
    try {
      const data = await post("/api/explain", { robots_txt: robots.value, url, agent, profile: profile.value || null });
      if (seq !== state.explainSeq) return; // a later click or edit asked again
      const text = robots.value.split("\n");
      const head = el(
        "p",
        {},
        el("strong", {}, agent),
        " on ",
        el("code", {}, url),
        ` (path ${data.path || "?"}, ${data.profile}): `,
        el("strong", { class: data.verdict }, data.verdict),
        data.line ? ` by line ${data.line}` : ` (${data.reason || data.error})`,
      );
      const rules = (data.matched || []).map((rule) =>
        el(
          "li",
          { class: rule.deciding ? "won" : "lost" },
          el("span", { class: "tag" }, rule.deciding ? "decides" : "lost"),
          " ",
          el("button", { type: "button", class: "goto", "data-goto-line": rule.line }, `line ${rule.line}`),
          " ",
          el("code", {}, text[rule.line - 1] ?? `${rule.kind}: ${rule.raw}`),
        ),
      );
      const list = rules.length ? el("ul", { class: "matched" }, ...rules) : el("p", { class: "hint" }, "No rule matched this path.");
      box.replaceChildren(head, list);
    } catch (err) {
      box.replaceChildren(el("p", { class: "error" }, err.message));
    }
  }

  function moveFocus(cell, key) {
    const r = Number(cell.getAttribute("data-row")), c = Number(cell.getAttribute("data-col"));
    const delta = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key];
    const next = document.querySelector(`.cell[data-row="${r + delta[0]}"][data-col="${c + delta[1]}"]`);
    if (next) next.focus();
  }

  // ---- audit and diff

  function auditNotes(c) {
    const ignored = c.ignored_rules.slice(0, 3).map((r) => `line ${r.line} ignored: ${r.reason}`);
    if (c.ignored_rules.length > 3) ignored.push(`${c.ignored_rules.length - 3} more ignored rules`);
    return [...c.notes, ...ignored].join("; ");
  }

  function renderAudit() {
    const data = state.audit;
    if (!data) return;
    const showAll = $("audit-filter").value === "all";
    const rows = data.crawlers
      .filter((c) => showAll || c.categories.some((k) => AI_CATEGORIES.has(k)))
      .map((c) =>
        el(
          "tr",
          { "data-token": c.token, "data-status": c.status },
          el("th", { scope: "row" }, c.token),
          el("td", {}, c.operator),
          el("td", {}, c.categories.join(", ")),
          el("td", { class: `status ${c.status}` }, { full: "blocked", partial: "partly blocked", none: "allowed" }[c.status] || c.status),
          el("td", {}, c.groups.length ? c.groups.map((g) => `L${g}`).join(" ") : "none"),
          el("td", { class: "notes" }, auditNotes(c)),
        ),
      );
    const s = data.summary;
    $("audit-summary").textContent = `${s.full} blocked, ${s.partial} partly, ${s.none} allowed (table ${data.table.version}, ${data.table.date})`;
    const head = el("tr", {}, ...["Crawler", "Operator", "Purpose", "Verdict", "Groups", "Notes"].map((h) => el("th", { scope: "col" }, h)));
    $("audit").replaceChildren(el("table", { class: "audit-table" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  }

  async function runDiff(signal) {
    const out = $("diff");
    if (!state.baseline) {
      out.replaceChildren(el("p", { class: "hint" }, "Set a baseline first: fetch or load a file, or use the current text."));
      return;
    }
    const body = {
      old_robots_txt: state.baseline.text,
      robots_txt: robots.value,
      urls: lines(urls),
      agents: lines(agents),
      profile: profile.value || null,
    };
    try {
      const data = await post("/api/diff", body, signal);
      const over = body.urls.length && body.agents.length ? "" : " (the files' own paths and agents, since the grid is empty)";
      const show = (c) => (c.allowed === null ? "error" : `${c.allowed ? "allowed" : "disallowed"}${c.line ? ` · L${c.line}` : ""}`);
      if (!data.changes.length) {
        out.replaceChildren(el("p", { class: "same" }, `No verdict changes across ${data.compared} URL x agent pairs${over}.`));
        return;
      }
      const head = el("tr", {}, ...["URL", "Agent", `Before (${state.baseline.label})`, "After (draft)"].map((h) => el("th", { scope: "col" }, h)));
      const rows = data.changes.map((c) =>
        el(
          "tr",
          { class: "change", "data-url": c.url, "data-agent": c.agent, "data-before": c.before.allowed ? "allowed" : "disallowed", "data-after": c.after.allowed ? "allowed" : "disallowed" },
          el("td", { class: "url" }, c.url),
          el("td", {}, c.agent),
          el("td", { class: c.before.allowed ? "allowed" : "disallowed" }, show(c.before)),
          el("td", { class: c.after.allowed ? "allowed" : "disallowed" }, show(c.after)),
        ),
      );
      out.replaceChildren(
        el("p", {}, `${data.changes.length} of ${data.compared} verdicts change${over}.`),
        el("table", { class: "diff-table" }, el("thead", {}, head), el("tbody", {}, ...rows)),
      );
    } catch (err) {
      if (err.name !== "AbortError") out.replaceChildren(el("p", { class: "error" }, err.message));
    }
  }

  function setBaseline(text, label) {
    state.baseline = { text, label };
    const count = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    $("baseline").textContent = `Baseline: ${label} (${count} lines).`;
  }

  // ---- updating as the user types

  let timer = null;
  let inflight = null;

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, DEBOUNCE_MS);
  }

  async function update() {
    if (inflight) inflight.abort();
    const controller = new AbortController();
    inflight = controller;
    const seq = ++state.seq;
    const urlList = lines(urls), agentList = lines(agents);
    const body = { robots_txt: robots.value, urls: urlList, agents: agentList, profile: profile.value || null };
    setStatus("Checking…");
    try {
      const [decided, audited] = await Promise.all([
        post("/api/decide", body, controller.signal),
        post("/api/audit", { robots_txt: robots.value, profile: body.profile }, controller.signal),
        state.baseline ? runDiff(controller.signal) : Promise.resolve(),
      ]);
      if (seq !== state.seq) return;
      renderLint(decided.lint);
      renderGrid(decided.verdicts, agentList, urlList);
      state.audit = audited;
      renderAudit();
      const blocked = decided.verdicts.filter((v) => v.verdict === "disallowed").length;
      setStatus(`${decided.lines} lines, ${decided.lint.length} lint findings, ${blocked} of ${decided.verdicts.length} verdicts disallowed.`);
      if (state.selected) {
        const cell = [...document.querySelectorAll(".cell")].find(
          (c) => c.getAttribute("data-url") === state.selected.url && c.getAttribute("data-agent") === state.selected.agent,
        );
        if (cell) {
          state.deciding = Number(cell.getAttribute("data-line")) || null;
          renderEditor();
          explain(state.selected.url, state.selected.agent);
        }
      }
    } catch (err) {
      if (err.name !== "AbortError" && seq === state.seq) setStatus(err.message, true);
    }
  }

  // ---- loading and fetching files

  function loadFile(file) {
    if (file.size > 512000) {
      setStatus(`${file.name} is ${file.size.toLocaleString()} bytes; the limit is 500 KiB (512,000 bytes), as much as a crawler reads.`, true);
      return;
    }
    const reader = new FileReader();
    reader.onload = () => {
      robots.value = String(reader.result);
      setBaseline(robots.value, file.name);
      $("fetch-outcome").textContent = `Loaded ${file.name} (${file.size.toLocaleString()} bytes).`;
      state.deciding = null;
      renderEditor();
      update();
    };
    reader.onerror = () => setStatus(`Cannot read ${file.name}.`, true);
    reader.readAsText(file);
  }

  async function fetchSite(event) {
    event.preventDefault();
    const site = $("site").value.trim();
    const outcome = $("fetch-outcome");
    if (!site) {
      outcome.textContent = "Type a site address first.";
      return;
    }
    outcome.textContent = `Fetching robots.txt for ${site}…`;
    outcome.className = "outcome";
    try {
      const data = await post("/api/fetch", { url: site });
      const verdict = { unreachable: "disallowed", unavailable: "allowed" }[data.outcome];
      const none = data.robots_txt === null && verdict ? ` (no file to edit: a crawler treats every URL as ${verdict}; the editor keeps its text)` : "";
      outcome.textContent = `${data.robots_url}: ${data.summary}${none}`;
      outcome.className = `outcome ${data.outcome}`;
      if (data.robots_txt !== null) {
        robots.value = data.robots_txt;
        setBaseline(data.robots_txt, `fetched ${data.robots_url}`);
        state.deciding = null;
        renderEditor();
        update();
      }
    } catch (err) {
      outcome.textContent = err.message;
      outcome.className = "outcome error";
    }
  }

  // ---- crawler picker

  function fillCrawlers() {
    const category = $("category").value;
    const options = state.crawlers.filter((c) => c.categories.includes(category)).map((c) => el("option", { value: c.token }, `${c.token} (${c.operator})`));
    $("crawler").replaceChildren(...options);
  }

  function addAgents(tokens) {
    const have = new Set(lines(agents));
    const extra = tokens.filter((t) => !have.has(t));
    if (!extra.length) return;
    const current = agents.value.replace(/\s+$/, "");
    agents.value = (current ? `${current}\n` : "") + extra.join("\n");
    schedule();
  }

  async function loadCrawlers() {
    try {
      const response = await fetch("/api/crawlers");
      const data = await response.json();
      state.crawlers = data.crawlers;
      $("category").replaceChildren(...data.categories.map((c) => el("option", { value: c }, c)));
      fillCrawlers();
    } catch (err) {
      setStatus(`Cannot load the crawler table: ${err.message}`, true);
    }
  }

  // ---- wiring

  document.addEventListener("DOMContentLoaded", () => {
    measure();
    for (const input of [robots, urls, agents]) input.addEventListener("input", schedule);
    robots.addEventListener("input", renderEditor);
    robots.addEventListener("scroll", renderEditor);
    profile.addEventListener("change", schedule);
    $("audit-filter").addEventListener("change", renderAudit);
    $("file").addEventListener("change", (e) => e.target.files[0] && loadFile(e.target.files[0]));
    $("fetch-form").addEventListener("submit", fetchSite);
    $("category").addEventListener("change", fillCrawlers);
    $("add-crawler").addEventListener("click", () => $("crawler").value && addAgents([$("crawler").value]));
    $("add-category").addEventListener("click", () => addAgents([...$("crawler").options].map((o) => o.value)));
    $("set-baseline").addEventListener("click", () => {
      setBaseline(robots.value, "saved draft");
      runDiff();
    });
    $("run-diff").addEventListener("click", () => runDiff());
    const grid = $("grid");
    grid.addEventListener("click", (e) => {
      const cell = e.target.closest(".cell");
      if (cell) choose(cell);
    });
    grid.addEventListener("keydown", (e) => {
      const cell = e.target.closest(".cell");
      if (!cell) return;
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        choose(cell);
      } else if (e.key.startsWith("Arrow")) {
        e.preventDefault();
        moveFocus(cell, e.key);
      }
    });
    document.body.addEventListener("click", (e) => {
      const go = e.target.closest("[data-goto-line]");
      if (go) selectLine(Number(go.getAttribute("data-goto-line")));
    });
    window.addEventListener("resize", renderEditor);
    renderEditor();
    loadCrawlers();
    update();
  });
})();
