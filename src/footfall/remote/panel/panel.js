// footfall control panel: talks to the control service's /retargeting WebSocket on this page's
// own host, builds a control for every parameter of the chosen character from its registry
// description (type, range), and follows the service's broadcasts.
"use strict";

const TEXT = {
  en: {
    title: "Retargeting control", connecting: "connecting…", open: "connected",
    closed: "disconnected, retrying…", characters: "Characters", presets: "Hand poses",
    calibration: "Calibration", parameters: "Parameters", filter: "filter parameters",
    calibrateIPose: "I-pose", calibrateHeadForward: "Head forward",
    autoCalibrateAll: "Auto (all)", resetCalibration: "Reset calibration",
    none: "no characters registered", language: "한국어", done: "done", error: "error",
    body: "Body and size", head: "Head", feet: "Feet and floor", ik: "Limb IK weights",
    fingers: "Fingers", filterGroup: "Smoothing filter",
  },
  ko: {
    title: "리타게팅 제어", connecting: "연결 중…", open: "연결됨", closed: "연결 끊김, 재시도 중…",
    characters: "캐릭터", presets: "손 포즈", calibration: "캘리브레이션", parameters: "파라미터",
    filter: "파라미터 검색", calibrateIPose: "I-포즈", calibrateHeadForward: "머리 정면",
    autoCalibrateAll: "전체 자동 보정", resetCalibration: "캘리브레이션 초기화",
    none: "등록된 캐릭터 없음", language: "English", done: "완료", error: "오류",
    body: "몸·크기", head: "머리", feet: "발·바닥", ik: "사지 IK 가중치", fingers: "손가락",
    filterGroup: "필터",
  },
};
const GROUPS = [
  ["fingers", (n) => /^(left|right)_|finger|hand_enabled/.test(n) && !/_arm_ik$/.test(n)],
  ["head", (n) => n.startsWith("head_")],
  ["feet", (n) => /foot|floor/.test(n) && !/height_(low|high)/.test(n)],
  ["filterGroup", (n) => n.startsWith("filter_")],
  ["ik", (n) => /ik|weight|distance|sit_|chair|height_(low|high)/.test(n)],
  ["body", () => true],
];

const SHOWN_ORDER = ["body", "feet", "head", "ik", "filterGroup", "fingers"];

const state = {
  lang: pickLanguage(), socket: null, nextId: 1, waiting: new Map(), characters: [],
  current: null, controls: new Map(), retry: 500, presets: [],
};
const $ = (id) => document.getElementById(id);

function pickLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "ko" || asked === "en") return asked;
  return (navigator.language || "").toLowerCase().startsWith("ko") ? "ko" : "en";
}

function t(key) { return (TEXT[state.lang] || TEXT.en)[key] || key; }

function translate() {
  document.documentElement.lang = state.lang;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
  for (const node of document.querySelectorAll("[data-t-placeholder]")) {
    node.placeholder = t(node.dataset.tPlaceholder);
  }
  $("lang").textContent = t("language");
  $("status").textContent = t($("status").dataset.state);
  renderPresets();
  renderCharacters();
  for (const [group, node] of groupNodes) node.querySelector("summary").textContent = t(group);
}

// A request that failed (closed socket, error reply): said in the footer, never thrown.
function report(error) {
  if (error && error.message && error.message !== "closed") say(`${t("error")}: ${error.message}`, true);
}

function say(text, bad = false) {
  const footer = $("message");
  footer.textContent = text;
  footer.classList.toggle("bad", bad);
}

// ------------------------------------------------------------------ connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/retargeting`);
  state.socket = socket;
  setStatus("connecting");
  socket.onopen = () => { state.retry = 500; setStatus("open"); refresh().catch(report); };
  socket.onclose = () => {
    setStatus("closed");
    for (const [, entry] of state.waiting) entry.reject(new Error("closed"));
    state.waiting.clear();
    setTimeout(connect, state.retry);
    state.retry = Math.min(state.retry * 2, 5000);
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
}

function setStatus(which) {
  $("status").dataset.state = which;
  $("status").textContent = t(which);
}

function send(action, fields = {}) {
  const id = state.nextId++;
  const socket = state.socket;
  if (!socket || socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error("closed"));
  socket.send(JSON.stringify({ action, id, ...fields }));
  return new Promise((resolve, reject) => state.waiting.set(id, { resolve, reject }));
}

function receive(message) {
  if (message.type === "broadcast") {
    if (message.character === state.current) {
      for (const [name, value] of Object.entries(message.values)) showValue(name, value, true);
    }
    return;
  }
  const entry = state.waiting.get(message.id);
  if (message.type === "error") {
    const error = message.error || {};
    say(`${t("error")}: ${error.field ? error.field + ": " : ""}${error.message}`, true);
  }
  if (!entry) return;
  state.waiting.delete(message.id);
  if (message.ok) entry.resolve(message.result); else entry.reject(message.error);
}

// ------------------------------------------------------------------ characters and presets

async function refresh() {
  const result = await send("refresh");
  state.characters = result.characters;
  state.presets = result.handPosePresets;
  if (!state.characters.includes(state.current)) state.current = state.characters[0] || null;
  renderCharacters();
  renderPresets();
  if (state.current) await loadCharacter(state.current);
}

function renderCharacters() {
  const box = $("characters");
  box.replaceChildren();
  if (!state.characters.length) { box.textContent = t("none"); return; }
  for (const name of state.characters) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.setAttribute("role", "tab");
    button.setAttribute("aria-selected", String(name === state.current));
    button.onclick = () => loadCharacter(name).catch(report);
    box.append(button);
  }
}

function renderPresets() {
  const box = $("presets");
  box.replaceChildren();
  for (const preset of state.presets) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.preset = preset.english;
    button.textContent = state.lang === "ko" ? preset.name : preset.english;
    button.title = state.lang === "ko" ? preset.english : preset.name;
    button.onclick = () => run("setHandPosePreset", { preset: preset.name });
    box.append(button);
  }
}

async function run(action, fields = {}) {
  if (!state.current) return;
  try {
    await send(action, { character: state.current, ...fields });
    say(`${t(action) === action ? action : t(action)}: ${t("done")}`);
  } catch (error) {
    if (error && error.message) say(`${t("error")}: ${error.message}`, true);
  }
}

// ------------------------------------------------------------------ parameters

let groupNodes = new Map();

async function loadCharacter(name) {
  state.current = name;
  renderCharacters();
  const data = await send("getCharacterData", { character: name });
  buildControls(data.parameters);
  $("parameters").dataset.character = name; // the controls now show this character's values
}

function buildControls(parameters) {
  const box = $("parameters");
  box.replaceChildren();
  state.controls.clear();
  groupNodes = new Map();
  for (const [group] of GROUPS) {
    const details = document.createElement("details");
    details.open = group !== "fingers";
    details.dataset.group = group;
    const summary = document.createElement("summary");
    summary.textContent = t(group);
    const rows = document.createElement("div");
    rows.className = "rows";
    details.append(summary, rows);
    groupNodes.set(group, details);
  }
  for (const parameter of parameters) {
    const [group] = GROUPS.find(([, test]) => test(parameter.name));
    groupNodes.get(group).querySelector(".rows").append(makeRow(parameter));
  }
  for (const group of SHOWN_ORDER) {
    const details = groupNodes.get(group);
    if (details.querySelector(".row")) box.append(details);
  }
  applyFilter();
}

function makeRow(parameter) {
  const row = document.createElement("div");
  row.className = "row";
  row.dataset.name = parameter.name;
  const label = document.createElement("label");
  label.textContent = parameter.name;
  const doc = document.createElement("div");
  doc.className = "doc";
  doc.textContent = parameter.doc;
  const id = `p-${parameter.name}`;
  label.htmlFor = id;
  let show;
  if (parameter.type === "float") {
    const range = document.createElement("input");
    range.type = "range";
    range.id = id;
    range.min = parameter.min;
    range.max = parameter.max;
    range.step = stepFor(parameter);
    const number = document.createElement("input");
    number.type = "number";
    number.min = parameter.min;
    number.max = parameter.max;
    number.step = range.step;
    number.setAttribute("aria-label", parameter.name);
    const sender = throttled((value) => update(parameter.name, value));
    let touched = -1e9;  // while the user moves it, echoes of older values must not move it back
    range.oninput = () => {
      touched = performance.now();
      number.value = range.value;
      sender(Number(range.value));
    };
    range.onchange = () => sender(Number(range.value), true);
    number.onchange = () => {
      const value = Math.min(parameter.max, Math.max(parameter.min, Number(number.value)));
      if (Number.isFinite(value)) { range.value = value; sender(value, true); }
    };
    row.append(label, number, range, doc);
    show = (value) => {
      if (performance.now() - touched < 500) return;
      range.value = value;
      if (document.activeElement !== number) number.value = round(value);
    };
  } else if (parameter.type === "bool") {
    const box = document.createElement("input");
    box.type = "checkbox";
    box.id = id;
    box.onchange = () => update(parameter.name, box.checked);
    row.append(label, box, doc);
    show = (value) => { box.checked = Boolean(value); };
  } else {
    const select = document.createElement("select");
    select.id = id;
    for (const choice of parameter.choices || []) select.append(new Option(choice, choice));
    select.onchange = () => update(parameter.name, select.value);
    row.append(label, select, doc);
    show = (value) => { select.value = value; };
  }
  state.controls.set(parameter.name, { row, show });
  show(parameter.value);
  return row;
}

function stepFor(parameter) {
  const span = parameter.max - parameter.min;
  if (parameter.name.endsWith("_deg")) return 0.5;
  return span > 100 ? 0.5 : span >= 1 ? 0.01 : 0.001;
}

function round(value) { return Math.round(value * 1000) / 1000; }

function showValue(name, value, flash) {
  const control = state.controls.get(name);
  if (!control) return;
  control.show(value);
  if (flash) {
    control.row.classList.add("flash");
    setTimeout(() => control.row.classList.remove("flash"), 400);
  }
}

// At most one message every 50 ms per control while dragging; the last value always goes.
function throttled(action) {
  let last = 0;
  let timer = null;
  let pendingValue;
  return (value, now = false) => {
    pendingValue = value;
    const wait = 50 - (performance.now() - last);
    if (now || wait <= 0) {
      clearTimeout(timer);
      timer = null;
      last = performance.now();
      action(pendingValue);
    } else if (!timer) {
      timer = setTimeout(() => { timer = null; last = performance.now(); action(pendingValue); }, wait);
    }
  };
}

async function update(name, value) {
  try {
    const result = await send("updateValueRealtime",
      { character: state.current, parameter: name, value });
    showValue(result.parameter, result.value, false);
    say(`${result.parameter} = ${typeof result.value === "number" ? round(result.value) : result.value}`);
  } catch (error) {
    if (error && error.message) say(`${t("error")}: ${error.message}`, true);
  }
}

function applyFilter() {
  const words = $("filter").value.trim().toLowerCase();
  for (const { row } of state.controls.values()) {
    row.hidden = Boolean(words) && !row.dataset.name.includes(words);
  }
  if (words) for (const details of groupNodes.values()) details.open = true;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("[data-action]")) {
    button.onclick = () => run(button.dataset.action);
  }
  $("lang").onclick = () => { state.lang = state.lang === "ko" ? "en" : "ko"; translate(); };
  $("filter").oninput = applyFilter;
  translate();
  connect();
});
