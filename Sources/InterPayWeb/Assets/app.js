// The InterPay web app: every call goes to the daemon's control methods under /api/ (the CLI's methods), and the
// daemon's events arrive on /api/events (Server-Sent Events). Every call carries the session /login opened, as
// `Authorization: Bearer`: the session is kept in this origin's storage, never in a cookie, because a browser sends
// cookies to every port of the host and storage is kept apart by port.
import { errorWords, strings } from "/assets/i18n.js";

const $ = (id) => document.getElementById(id);
// The language the user chose here, else the one the daemon picked from Accept-Language (<html lang>).
let language = localStorage.getItem("language") || document.documentElement.lang || "en";
if (!strings[language]) language = "en";
const t = (key) => strings[language][key] || strings.en[key] || key;
let peers = [];

// The session of a login (the page /login answers carries it once), else the one this origin kept.
const given = document.querySelector('meta[name="interpay-session"]');
if (given) {
  localStorage.setItem("session", given.content);
  given.remove();
  history.replaceState(null, "", "/" + location.hash);
}
const authorization = () => ({ Authorization: `Bearer ${localStorage.getItem("session") || ""}` });

async function api(method, params) {
  const options = params === undefined
    ? { method: "GET", headers: authorization() }
    : { method: "POST", headers: { "Content-Type": "application/json", ...authorization() },
        body: JSON.stringify(params) };
  const response = await fetch(`/api/${method}`, { credentials: "omit", ...options });
  const body = await response.json();
  if (!response.ok) {
    const error = new Error(body.error ? body.error.message : response.statusText);
    error.code = body.error ? body.error.code : undefined;
    error.status = response.status;
    const data = body.error && body.error.data;
    error.data = data && typeof data === "object" && !Array.isArray(data) ? data : {};
    throw error;
  }
  return body;
}

/**
 * What went wrong, in the page's language: the daemon's reason (`data.reason`) in this language's words, else the
 * words for the HTTP status; an English page shows the daemon's own sentence.
 */
function errorText(error) {
  const words = errorWords[language];
  if (!words || error.status === undefined) return error.message;
  const word = words[error.data.reason] || words[`status${error.status}`] || words.other;
  return word(error.data, error.message);
}

/** `template` with each `{name}` replaced by `values[name]`. */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
}

/** The number of decimals of a currency (JPY 0, MXN 2, KWD 3). */
export function decimals(currency) {
  try { return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits; }
  catch { return 2; }
}

/**
 * The locale numbers are written in: the browser's own for the chosen language where it has one (es-ES writes
 * `12,50 €`, es-MX `$12.50`), else es-MX for Spanish and en-US for English.
 */
function numberLocale() {
  const own = (navigator.languages || [navigator.language || ""]).find((tag) => tag.split("-")[0] === language);
  if (own) {
    try { return new Intl.NumberFormat(own).resolvedOptions().locale; } catch { /* not a locale the browser knows */ }
  }
  return language === "es" ? "es-MX" : "en-US";
}

/** How numberLocale() writes decimals: "," (es-ES) or "." (en, es-MX); the daemon's amount parser reads it. */
function decimalSeparator() {
  const part = new Intl.NumberFormat(numberLocale()).formatToParts(1.5).find((p) => p.type === "decimal");
  return part && part.value === "," ? "," : ".";
}

/** An amount given in minor units, formatted for the language with the currency's own decimals. */
export function money(minorUnits, currency) {
  const digits = decimals(currency);
  try {
    return new Intl.NumberFormat(numberLocale(), { style: "currency", currency, minimumFractionDigits: digits,
      maximumFractionDigits: digits }).format(minorUnits / 10 ** digits);
  } catch { return `${(minorUnits / 10 ** digits).toFixed(digits)} ${currency}`; }
}

function notice(text) { $("notice").textContent = text || ""; }

function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/**
 * A peer as every view names it, the rule of the daemon's PeerLabel: always `name (SHORTID)`, since anyone can
 * announce any name; `[unverified]` (in the page's language) unless paired; a paired peer that announces another
 * name than the one kept at pairing shows it, flagged.
 */
export function peerLabel(peer) {
  const trust = typeof peer.trust === "string" ? peer.trust : peer.trust && peer.trust.state;
  const label = `${peer.name || "?"} (${peer.shortID})`;
  if (trust !== "paired") return `${label} [${t("unverified")}]`;
  return peer.announcedName ? `${label} (${t("announces")} "${peer.announcedName}") [${t("nameChanged")}]` : label;
}

/** Whether a peer (of `peers`, or of a payment) is paired. */
function isPaired(peer) {
  return (typeof peer.trust === "string" ? peer.trust : peer.trust && peer.trust.state) === "paired";
}

function translate() {
  document.documentElement.lang = language;
  $("language").value = language;
  for (const node of document.querySelectorAll("[data-t]")) node.textContent = t(node.dataset.t);
}

// MARK: Pages

async function loadNearby() {
  peers = (await api("peers")).peers;
  const body = $("peers");
  body.replaceChildren();
  let pairingPeer = null;
  for (const peer of peers) {
    const row = element("tr");
    const trust = peer.trust.state === "paired" ? t("paired") : t("unverified");
    row.append(element("td", peerLabel(peer), isPaired(peer) ? {} : { class: "unverified" }),
      element("td", peer.shortID, { class: "mono" }),
      element("td", peer.session === "up" ? t("up") : t("down")),
      element("td", trust, peer.trust.state === "paired" ? {} : { class: "unverified" }));
    const actions = element("td");
    if (peer.trust.state === "paired") {
      const rename = element("button", t("rename"), { type: "button" });
      rename.addEventListener("click", () => {
        const name = prompt(t("rename"), peer.name || "");
        if (name) act("rename", { peer: peer.id, name }, loadNearby);
      });
      const button = element("button", t("untrust"), { type: "button", class: "secondary" });
      button.addEventListener("click", () => act("untrust", { peer: peer.id }, loadNearby));
      actions.append(rename, button);
    } else if (peer.session === "up") {
      const button = element("button", t("pair"), { type: "button" });
      button.addEventListener("click", () => act("pair", { peer: peer.id }, loadNearby));
      actions.append(button);
    }
    row.append(actions);
    body.append(row);
  }
  showPairing(peers.filter((peer) => peer.trust.pairing === "code" && peer.trust.code));
  fillPeerPicker();
}

/**
 * One panel per pairing that has its code: it names the peer (name and short ID), shows this side's code, and asks
 * for the code the other screen shows, as `interpay pair PEER --code CODE` does; its button acts on that peer only.
 * A panel whose peer is unchanged is kept as it is, so that a redraw does not clear a code being typed.
 */
function showPairing(pairing) {
  const list = $("pairing");
  list.hidden = pairing.length === 0;
  const existing = new Map([...list.children].map((node) => [node.dataset.peer, node]));
  list.replaceChildren(...pairing.map((peer) => {
    const version = `${language}|${peer.trust.code}|${peerLabel(peer)}`;
    const kept = existing.get(peer.id);
    if (kept && kept.dataset.version === version) return kept;
    const panel = element("form", undefined, { class: "pairing", "data-peer": peer.id, "data-version": version });
    const input = element("input", undefined, { class: "pairing-input", inputmode: "numeric", autocomplete: "off",
      pattern: "[0-9 ]{6,7}", required: "", "aria-label": t("theirCode") });
    panel.append(element("p", `${t("pairingWith")} ${peerLabel(peer)}`, { class: "pairing-peer" }),
      element("p", `${t("yourCode")} ${peer.trust.code.slice(0, 3)} ${peer.trust.code.slice(3)}`,
        { class: "code pairing-code" }),
      element("p", t("compare")),
      element("label", t("theirCode")), input,
      element("button", t("confirm"), { type: "submit", class: "pairing-confirm" }));
    panel.addEventListener("submit", (event) => {
      event.preventDefault();
      act("pair", { peer: peer.id, code: input.value.replace(/\s/g, "") }, loadNearby);
    });
    return panel;
  }));
}

/**
 * The Request page's peer picker: peers with a session, paired ones first; nothing chosen until the user chooses
 * (an unverified peer is never preselected: anyone can announce a contact's name). A choice still offered is kept.
 */
function fillPeerPicker() {
  const offered = peers.filter((peer) => peer.session === "up")
    .sort((a, b) => Number(isPaired(b)) - Number(isPaired(a)) || peerLabel(a).localeCompare(peerLabel(b)));
  for (const select of [$("request-peer"), $("offer-peer")]) {
    const chosen = select.value;
    select.replaceChildren(element("option", t("choosePeer"), { value: "", disabled: "", selected: "" }),
      ...offered.map((peer) => element("option", peerLabel(peer),
        isPaired(peer) ? { value: peer.id } : { value: peer.id, class: "unverified" })));
    select.value = offered.some((peer) => peer.id === chosen) ? chosen : "";
  }
}

async function act(method, params, then) {
  try {
    notice("");
    const result = await api(method, params);
    if (then) await then(result);
    return result;
  } catch (error) {
    notice(errorText(error));
  }
}

let preferred = null;
let previewTimer = null;
let amountCheck = Promise.resolve(false);
let amountSerial = 0;

/**
 * The typed amount checked by the daemon's one amount parser (through `convert`, to the preferred currency or to
 * the amount's own): an invalid amount shows the parser's words and no preview; a valid one shows the amount as
 * it will be requested and, in another currency than the preferred one, its conversion. Resolves to whether the
 * amount is valid (true also when only the rates are missing: the amount was read before them).
 */
function checkAmount() {
  clearTimeout(previewTimer);
  const input = $("request-amount");
  const currency = $("request-currency").value.trim().toUpperCase();
  $("request-converted").textContent = "";
  if (!input.value.trim()) {
    input.setCustomValidity("");
    $("request-preview").textContent = "";
    amountCheck = Promise.resolve(false);
    return amountCheck;
  }
  const serial = ++amountSerial;
  amountCheck = new Promise((resolve) => {
    previewTimer = setTimeout(async () => {
      const to = preferred || currency;
      // An answer to an earlier check (the user typed on) changes nothing on the page.
      const current = () => serial === amountSerial;
      try {
        const quote = await api("convert", { amount: input.value, from: currency, to,
          decimalSeparator: decimalSeparator() });
        if (!current()) return resolve(true);
        input.setCustomValidity("");
        $("request-preview").textContent = money(minorUnitsOf(quote.from.amount), quote.from.currency);
        if (quote.currency !== quote.from.currency) {
          $("request-converted").textContent = `≈ ${money(quote.minorUnits, quote.currency)}`;
        }
        resolve(true);
      } catch (error) {
        const invalid = error.code === -32602;
        if (!current()) return resolve(!invalid);
        input.setCustomValidity(invalid ? errorText(error) : "");
        $("request-preview").textContent = invalid ? errorText(error) : "";
        resolve(!invalid);
      }
    }, 250);
  });
  return amountCheck;
}

async function sendRequest(event) {
  event.preventDefault();
  if (!(await checkAmount())) return;
  const params = {
    peer: $("request-peer").value, amount: $("request-amount").value, decimalSeparator: decimalSeparator(),
    currency: $("request-currency").value.toUpperCase(), memo: $("request-memo").value,
    expiresInSeconds: Number($("request-expiry").value || 15) * 60,
  };
  if ($("request-category").value) params.category = $("request-category").value;
  const payment = await act("send", params);
  if (payment) {
    $("request-result").textContent =
      `${t("requested")} ${money(payment.minorUnits, payment.currency)} (${payment.shortID}): ${peerLabel(payment.peer)}`;
    $("request-result").dataset.payment = payment.id;
    $("request-result").dataset.state = payment.state;
    if (payment.queued) notice(`${t("queuedNotice")} ${peerLabel(payment.peer)}`);
    clearRequest();
    await loadInbox();
  }
}

/** The Request form as it starts: no amount, memo or category, the preferred currency (else MXN). */
function clearRequest() {
  for (const id of ["request-amount", "request-memo", "request-category"]) $(id).value = "";
  $("request-currency").value = preferred || "MXN";
  $("request-preview").textContent = "";
  $("request-converted").textContent = "";
}

/** A payment's state in the page's language, with "awaiting payee" where the daemon says so (`awaitingPayee`). */
function stateText(payment) {
  return payment.awaitingPayee ? `${t(payment.state)} (${t("awaitingPayee")})` : t(payment.state);
}

function button(label, method, style, onClick) {
  const node = element("button", t(label), { type: "button", class: `${style} ${method}` });
  node.addEventListener("click", onClick);
  return node;
}

/**
 * What can be done with a payment in its state, on its card: accept or reject a request (payer), cancel it (payee);
 * mark an accepted payment paid with a method and a reference (payer); confirm the money arrived (payee, from
 * accepted or paid); show and download a settled payment's signed receipt (both sides). Final states have none.
 */
function paymentActions(payment) {
  const incoming = payment.direction === "in";
  const nodes = [];
  if (payment.state === "pending") {
    nodes.push(element("div", "", { class: "muted expiry", "data-expires": payment.expiresAt }));
    const buttons = incoming
      ? [["accept", "accept", ""], ["reject", "reject", "secondary"]] : [["cancel", "cancel", "secondary"]];
    for (const [method, label, style] of buttons) {
      nodes.push(button(label, method, style, () => act(method, { payment: payment.id }, loadInbox)));
    }
  } else if (incoming && payment.state === "accepted" && !payment.awaitingPayee) {
    const form = element("form", undefined, { class: "settle" });
    const method = element("select", undefined, { class: "paid-method", "aria-label": t("method") });
    for (const value of ["cash", "transfer", "card", "other"]) method.append(element("option", t(value), { value }));
    const reference = element("input", undefined, { class: "paid-reference", maxlength: "140", autocomplete: "off",
      placeholder: t("reference"), "aria-label": t("reference") });
    form.append(method, reference, element("button", t("markPaid"), { type: "submit", class: "paid" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const params = { payment: payment.id, method: method.value };
      if (reference.value.trim()) params.reference = reference.value.trim();
      act("paid", params, loadInbox);
    });
    nodes.push(form);
  } else if (!incoming && (payment.state === "accepted" || payment.state === "paid")) {
    if (payment.state === "accepted") nodes.push(element("div", t("awaitingPayment"), { class: "muted" }));
    nodes.push(button("received", "received", "", () => act("received", { payment: payment.id }, loadInbox)));
  } else if (incoming && payment.state === "paid") {
    nodes.push(element("div", t("awaitingConfirmation"), { class: "muted" }));
  } else if (payment.state === "settled" && payment.receipt) {
    const panel = element("div", undefined, { class: "receipt-panel" });
    nodes.push(button("receipt", "receipt", "secondary", () => showReceipt(payment, panel)), panel);
  }
  return nodes;
}

/**
 * A settled payment's receipt on its card: its summary, who signed it, and a link that downloads the signed text
 * exactly as the daemon keeps it (`receipt-SHORTID.json`), which `interpay verify-receipt` checks offline.
 */
async function showReceipt(payment, panel) {
  const info = await act("receipt", { payment: payment.id });
  if (!info) return;
  const link = element("a", t("downloadReceipt"), { class: "receipt-download",
    href: URL.createObjectURL(new Blob([info.receipt], { type: "application/json" })),
    download: `receipt-${payment.shortID}.json` });
  // What the signed receipt says, in the page's language; the two parties as the daemon's presenter names them.
  const d = info.details;
  const summary = d ? fill(t("receiptLine"), { id: payment.shortID, amount: money(d.minorUnits, d.currency),
    payer: d.payerLabel, payee: d.payeeLabel,
    when: new Date(d.settledAt * 1000).toLocaleString(language) }) : "";
  panel.replaceChildren(element("div", summary, { class: "receipt-summary" }),
    element("div", payment.direction === "in" ? t("receiptVerified") : t("receiptSigned"), { class: "muted" }),
    link, element("div", t("verifyOffline"), { class: "muted" }));
}

function paymentCard(payment) {
  const item = element("li", undefined, { "data-payment": payment.id, "data-state": payment.state });
  // The amount in the preferred currency, as the CLI shows it: the quote kept when it was accepted, else today's.
  const quote = payment.quote;
  const converted = payment.converted;
  const other = quote ? `= ${money(quote.minorUnits, quote.currency)} ${t("whenAccepted")}`
    : converted ? `≈ ${money(converted.minorUnits, converted.currency)}${converted.stale ? ` (${t("stale")})` : ""}`
      : "";
  item.append(element("div", money(payment.minorUnits, payment.currency), { class: "amount" }),
    ...(other ? [element("div", other, { class: "muted converted" })] : []),
    element("div", `${payment.direction === "in" ? t("from") : t("to")}: ${peerLabel(payment.peer)}`,
      payment.peer.trust === "paired" ? {} : { class: "unverified" }),
    element("div", payment.memo || ""),
    element("div", `${t("state")}: ${stateText(payment)}`, { class: "state" }),
    element("div", payment.shortID, { class: "mono muted short-id" }));
  if (payment.method) {
    const reference = payment.reference ? ` · ${payment.reference}` : "";
    item.append(element("div", `${t("paidWith")}: ${t(payment.method)}${reference}`, { class: "muted paid-with" }));
  }
  if (payment.refundOf) {
    // Money given back of an earlier payment (the ledger links them; `interpay show` names it).
    item.append(element("div", t(payment.direction === "in" ? "refundGiven" : "refundGot"), { class: "muted refund-of" }));
  }
  if (payment.refunded) {
    item.append(element("div", `${t("refunded")}: ${money(minorUnitsOf(payment.refunded), payment.currency)}`,
      { class: "muted refunded" }));
  }
  item.append(...paymentActions(payment));
  if (payment.refundable) item.append(refundForm(payment));
  return item;
}

/**
 * The payee's Refund action (PROTOCOL.md §8.7): what is left to refund, as the daemon says (`refundable`), an
 * amount (empty: all of it) and why. The daemon checks it as `interpay refund` does and says what is wrong.
 */
function refundForm(payment) {
  const form = element("form", undefined, { class: "refund" });
  const amount = element("input", undefined, { class: "refund-amount", inputmode: "decimal", autocomplete: "off",
    placeholder: typedAmount(payment.refundable), "aria-label": t("amount") });
  const memo = element("input", undefined, { class: "refund-memo", maxlength: "200", autocomplete: "off",
    placeholder: t("refundReason"), "aria-label": t("refundReason") });
  form.append(element("div", `${t("refundLeft")}: ${money(minorUnitsOf(payment.refundable), payment.currency)}`,
    { class: "muted" }),
    amount, memo, element("button", t("refund"), { type: "submit", class: "secondary refund" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const params = { payment: payment.id, memo: memo.value.trim(), decimalSeparator: decimalSeparator() };
    if (amount.value.trim()) params.amount = amount.value.trim();
    act("refund", params, loadInbox);
  });
  return form;
}

/** What a payment's card shows: a card whose version is unchanged is kept as it is. */
function cardVersion(payment) {
  return [language, payment.state, payment.updatedAt, payment.confirmed, peerLabel(payment.peer), payment.refundable,
    JSON.stringify([payment.quote, payment.converted])].join("|");
}

/**
 * Shows `payments` in `list`, one card each, updating it in place: a card whose payment did not change stays the
 * same node, so a redraw on a live event keeps the keyboard focus (a focused Accept button) where it was. When the
 * focused card itself changed, the focus goes to the same button of its new card, or to the card.
 */
function updateCards(list, payments) {
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  const focusKey = focused && {
    payment: focused.closest("li") && focused.closest("li").dataset.payment,
    method: ["accept", "reject", "cancel", "paid", "received", "receipt", "refund"]
      .find((m) => focused.classList.contains(m)),
  };
  const existing = new Map([...list.children].map((node) => [node.dataset.payment, node]));
  const nodes = payments.map((payment) => {
    const node = existing.get(payment.id);
    const version = cardVersion(payment);
    if (node && node.dataset.version === version) return node;
    const card = paymentCard(payment);
    card.dataset.version = version;
    return card;
  });
  // Cards that went are removed first, then only what is out of place moves: the cards that stay in order are
  // never taken out of the list (which would blur a focused button).
  const kept = new Set(nodes);
  for (const node of [...list.children]) if (!kept.has(node)) node.remove();
  nodes.forEach((node, index) => {
    if (list.children[index] !== node) list.insertBefore(node, list.children[index] || null);
  });
  if (focusKey && focusKey.payment && !list.contains(document.activeElement)) {
    const card = list.querySelector(`li[data-payment="${CSS.escape(focusKey.payment)}"]`);
    const target = card && ((focusKey.method && card.querySelector(`button.${focusKey.method}`)) || card);
    if (target) {
      if (target === card) card.tabIndex = -1;
      target.focus();
    }
  }
}

async function loadInbox() {
  const { payments } = await api("list", { limit: 50 });
  // Open requests and payments still to be settled stay, whatever their age; the rest for an hour after changing.
  const open = ["pending", "accepted", "paid"];
  const recent = payments.filter((p) => open.includes(p.state) || Date.now() / 1000 - p.updatedAt < 3600);
  updateCards($("inbox-in"), recent.filter((p) => p.direction === "in"));
  updateCards($("inbox-out"), recent.filter((p) => p.direction === "out"));
  // A refund given changes a payment of the History page too.
  if (!$("page-history").hidden) await loadHistory();
  // An empty side says so, instead of a heading over nothing.
  for (const side of ["in", "out"]) $(`inbox-${side}-empty`).hidden = $(`inbox-${side}`).children.length > 0;
  tick();
}

function tick() {
  for (const node of document.querySelectorAll("[data-expires]")) {
    const seconds = Math.max(0, Number(node.dataset.expires) - Math.floor(Date.now() / 1000));
    node.textContent = `${t("expiresIn")} ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }
}

async function loadHistory() {
  const params = { limit: 500 };
  if ($("history-state").value) params.state = $("history-state").value;
  if ($("history-direction").value) params.direction = $("history-direction").value;
  if ($("history-peer").value) params.peer = $("history-peer").value;
  let { payments } = await api("list", params);
  const since = $("history-since").value;
  if (since) payments = payments.filter((p) => p.createdAt >= Date.parse(since) / 1000);
  $("history-rows").replaceChildren(...payments.map((p) => {
    const row = element("tr");
    row.append(element("td", p.shortID, { class: "mono" }),
      element("td", new Date(p.createdAt * 1000).toLocaleString(language)),
      element("td", peerLabel(p.peer), isPaired(p.peer) ? {} : { class: "unverified" }),
      element("td", money(p.minorUnits, p.currency)), element("td", stateText(p)), element("td", p.memo),
      element("td", p.quote ? money(p.quote.minorUnits, p.quote.currency) : ""));
    return row;
  }));
}

let chart = null;
async function loadSales() {
  const period = $("sales-period").value;
  const { rows } = await api("stats", { period });
  $("sales-rows").replaceChildren(...rows.map((row) => {
    const line = element("tr", undefined, { "data-currency": row.currency, "data-direction": row.direction });
    line.append(element("td", t(row.direction)), element("td", row.currency), element("td", String(row.count)),
      element("td", money(row.totalMinor, row.currency), { class: "total", "data-minor": row.totalMinor }),
      element("td", money(row.averageMinor, row.currency)));
    return line;
  }));
  const categories = (await api("stats", { period, by: "category" })).rows;
  $("sales-categories").replaceChildren(...categories.map((row) =>
    element("li", `${row.group || t("none")}: ${money(row.totalMinor, row.currency)} (${row.count})`)));
  const days = period === "week" ? 7 : 30;
  const { payments } = await api("list", { limit: 2000 });
  const counted = payments.filter((p) => ["accepted", "paid", "settled"].includes(p.state));
  // One line per currency (amounts of different currencies are never added), each day's total as a point joined
  // by straight segments: the chart draws what was sold, not a smoothed curve between days.
  const currencies = [...new Set([...rows.map((row) => row.currency), ...counted.map((p) => p.currency)])].sort();
  const labels = [];
  const starts = [];
  const today = new Date(); today.setHours(0, 0, 0, 0);
  for (let day = days - 1; day >= 0; day--) {
    const start = new Date(today); start.setDate(today.getDate() - day);
    starts.push(start);
    labels.push(start.toLocaleDateString(language, { month: "short", day: "numeric" }));
  }
  const colours = ["#0b3d91", "#b3261e", "#1b6e20", "#7a4b00", "#5b2a86", "#006874"];
  const datasets = currencies.map((currency, index) => ({
    label: `${t("total")} ${currency}`, tension: 0, fill: false, borderColor: colours[index % colours.length],
    backgroundColor: colours[index % colours.length],
    data: starts.map((start) => {
      const end = new Date(start); end.setDate(start.getDate() + 1);
      return counted.filter((p) => p.currency === currency && p.createdAt * 1000 >= start && p.createdAt * 1000 < end)
        // A refund takes from the day it was given, as `stats` nets it out (it is never a sale of its own).
        .reduce((total, p) => total + (p.refundOf ? -p.minorUnits : p.minorUnits), 0) / 10 ** decimals(currency);
    }),
  }));
  $("sales-chart").dataset.currencies = currencies.join(" ");
  if (!window.Chart) { notice(t("noChart")); return; }
  if (chart) chart.destroy();
  chart = new window.Chart($("sales-chart"), {
    type: "line",
    data: { labels, datasets },
    options: { animation: false, responsive: false, scales: { y: { beginAtZero: true } } },
  });
}

async function convert(event) {
  event.preventDefault();
  const result = await act("convert", {
    amount: $("convert-amount").value, from: $("convert-from").value, to: $("convert-to").value });
  if (result) {
    $("convert-result").textContent = `${money(result.minorUnits, result.currency)} (${t("rate")} ${result.rate}${
      result.stale ? `, ${t("stale")}` : ""})`;
  }
}

function showCurrency(result) {
  $("profile-currency").value = result.currency || "";
  $("currency-source").textContent =
    result.source === "user" ? t("yourChoice") : result.source === "configuration" ? t("fromConfiguration") : t("none");
}

async function saveCurrency(event) {
  event.preventDefault();
  const result = await act("currency", { currency: $("profile-currency").value });
  if (result) {
    showCurrency(result);
    preferred = result.currency;
  }
}

async function loadProfile() {
  showCurrency(await api("currency", {}));
  const status = await api("status");
  $("profile-name").textContent = status.name;
  $("profile-id").textContent = status.id;
  $("profile-short").textContent = status.shortID;
  $("profile-version").textContent = status.version;
  if (window.qrcode) {
    const code = window.qrcode(0, "M");
    code.addData(status.id);
    code.make();
    $("profile-qr").src = code.createDataURL(5, 4);
    $("profile-qr").alt = `${t("peerID")}: ${status.id}`;
    $("profile-qr").hidden = false;
  }
}

async function loadConverter() {
  try {
    const rates = await api("rates");
    const age = Math.round(rates.ageSeconds / 60);
    $("rates-freshness").textContent =
      `${t("ratesFrom")} ${rates.source}, ${age} min${rates.stale ? ` (${t("stale")})` : ""}`;
  } catch (error) {
    $("rates-freshness").textContent = errorText(error);
  }
}

async function loadRequest() {
  const before = preferred;
  preferred = (await api("status")).currency;
  // The currency starts as the preferred one; one the user typed is kept across redraws.
  if (!$("request-currency").value || $("request-currency").value === (before || "MXN")) {
    $("request-currency").value = preferred || "MXN";
  }
  await loadNearby();
}

/** How often a series falls due, as it really does: "every month", or "every 4 s (test period)". */
function seriesEvery(series) {
  return series.periodSeconds ? `${t("every")} ${series.periodSeconds} s (${t("testPeriod")})`
    : `${t("every")} ${t(series.every).toLowerCase()}`;
}

/** The minor units of an amount the daemon wrote (`"12.50"`: 1250), without floating point. */
function minorUnitsOf(amount) {
  const [whole, fraction = ""] = amount.split(".");
  return Number(whole + fraction);
}

/** A daemon's decimal amount as the user would type it back: the language's decimal separator, no grouping. */
function typedAmount(amount) {
  return amount.replace(".", decimalSeparator());
}

/**
 * A series' card: what, who, how often, its state as every surface shows it (`shownState`), the periods requested,
 * accepted and paid, the cap; and what can be done in that state: the payer approves an offer within a cap (a peer
 * that is not paired must be named by its short ID, as `interpay approve --peer` asks), declines it, changes the cap
 * of an approval, or ends it; the payee ends what it offered.
 */
function seriesCard(series) {
  const incoming = series.direction === "in";
  const state = series.shownState;
  const item = element("li", undefined, { "data-series": series.id, "data-state": state });
  const count = series.count ? ` ${t("of")} ${series.count}` : "";
  item.append(element("div", `${money(minorUnitsOf(series.amount), series.currency)} ${seriesEvery(series)}`,
    { class: "amount" }),
  element("div", `${t(series.direction)} · ${incoming ? t("from") : t("to")}: ${peerLabel(series.peer)}`,
    isPaired(series.peer) ? {} : { class: "unverified" }),
  element("div", series.memo || ""),
  element("div", `${t("state")}: ${t(state)}`, { class: "state" }),
  element("div", `${t("requestedPeriods")}: ${series.instances}${count} · ${t("acceptedPeriods")}: ${series.accepted}`
    + ` · ${t("paidPeriods")}: ${series.paid}`, { class: "muted periods" }),
  element("div", series.shortID, { class: "mono muted short-id" }));
  if (series.cap) {
    item.append(element("div", `${t("cap")}: ${money(minorUnitsOf(series.cap), series.currency)}`,
      { class: "muted cap" }));
  }
  if (series.nextDue) {
    item.append(element("div", `${t("nextDue")}: ${new Date(series.nextDue * 1000).toLocaleString(language)}`,
      { class: "muted" }));
  }
  if (incoming && (state === "offered" || state === "approved")) {
    const form = element("form", undefined, { class: "approve-form" });
    const cap = element("input", undefined, { class: "approve-cap", inputmode: "decimal", autocomplete: "off",
      value: typedAmount(series.cap || series.amount), "aria-label": t("cap") });
    form.append(element("label", t("cap")), cap);
    let named = null;
    if (!isPaired(series.peer) && state === "offered") {
      named = element("input", undefined, { class: "approve-peer", autocomplete: "off", "aria-label": t("namePeer"),
        placeholder: series.peer.shortID.replace(/./g, "?") });
      form.append(element("label", t("namePeer")), named);
    }
    form.append(element("button", t(state === "offered" ? "approve" : "changeCap"), { type: "submit", class: "approve" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const params = { series: series.id, max: cap.value, decimalSeparator: decimalSeparator() };
      if (named) params.peer = named.value.trim();
      act("approve", params, loadSubscriptions);
    });
    item.append(form);
  }
  if (incoming && state === "offered") {
    item.append(button("decline", "decline", "secondary", () => act("decline", { series: series.id },
      loadSubscriptions)));
  } else if (state === "offered" || state === "approved") {
    item.append(button("endSeries", "unsubscribe", "secondary", () => act("unsubscribe", { series: series.id },
      loadSubscriptions)));
  }
  return item;
}

async function loadSubscriptions() {
  await loadNearby();
  const { series } = await api("subscriptions");
  const focused = document.activeElement;
  // A form the user is typing in is not redrawn under the cursor.
  if (focused && focused.closest && focused.closest("#series-list form")) return;
  $("series-list").replaceChildren(...series.map(seriesCard));
}

/**
 * The Split page (PROTOCOL.md §8.8): a check box for each peer with a session (paired first), the total and its
 * currency; the daemon splits it to the cent and sends one request each. Below, each bill as the daemon states it:
 * its state, what was collected and what is left, each share with its payer and state, and a Cancel action while
 * shares are pending. Redrawn on every event, as every page is.
 */
async function loadSplit() {
  await loadNearby();
  const box = $("split-payers");
  const chosen = new Set([...box.querySelectorAll("input:checked")].map((input) => input.value));
  const offered = peers.filter((peer) => peer.session === "up")
    .sort((a, b) => Number(isPaired(b)) - Number(isPaired(a)) || peerLabel(a).localeCompare(peerLabel(b)));
  box.replaceChildren(box.querySelector("legend"), ...offered.map((peer) => {
    const input = element("input", undefined, { type: "checkbox", value: peer.id, class: "split-payer" });
    input.checked = chosen.has(peer.id);
    const label = element("label", undefined, isPaired(peer) ? {} : { class: "unverified" });
    label.append(input, element("span", peerLabel(peer)));
    return label;
  }));
  if (!$("split-currency").value) $("split-currency").value = preferred || "MXN";
  const { bills } = await api("bills");
  $("bill-list").replaceChildren(...bills.map(billCard));
  $("bill-list-empty").hidden = bills.length > 0;
}

function billCard(bill) {
  const item = element("li", undefined, { "data-bill": bill.id, "data-state": bill.state });
  item.append(element("div", `${money(bill.minorUnits, bill.currency)} · ${bill.memo}`, { class: "amount" }),
    element("div", `${t("state")}: ${t(bill.state)}`, { class: "state" }),
    element("div", `${t("collected")}: ${money(minorUnitsOf(bill.collected), bill.currency)} · ${t("left")}: ${
      money(minorUnitsOf(bill.left), bill.currency)}`,
      { class: "bill-left" }),
    element("div", bill.shortID, { class: "mono muted short-id" }));
  const shares = element("ul", undefined, { class: "shares" });
  shares.append(...bill.shares.map((share) => element("li",
    `${peerLabel(share.peer)}: ${money(share.minorUnits, share.currency)} · ${stateText(share)}`,
    { "data-payment": share.id, "data-state": share.state })));
  item.append(shares);
  if (bill.pending > 0) {
    item.append(button("cancelBill", "cancel-bill", "secondary", () => act("cancel-bill", { bill: bill.id }, loadSplit)));
  }
  return item;
}

async function splitBill(event) {
  event.preventDefault();
  const payers = [...$("split-payers").querySelectorAll("input:checked")].map((input) => input.value);
  const bill = await act("split", { payers, amount: $("split-amount").value,
    currency: $("split-currency").value.trim().toUpperCase(), memo: $("split-memo").value,
    decimalSeparator: decimalSeparator() }, loadSplit);
  if (bill) for (const id of ["split-amount", "split-memo"]) $(id).value = "";
}

async function offerSeries(event) {
  event.preventDefault();
  const params = { peer: $("offer-peer").value, amount: $("offer-amount").value, currency:
    $("offer-currency").value.trim().toUpperCase(), every: $("offer-every").value, memo: $("offer-memo").value,
    decimalSeparator: decimalSeparator() };
  if ($("offer-count").value) params.count = Number($("offer-count").value);
  const series = await act("offer", params);
  if (series) {
    $("offer-result").textContent = `${t("offered")} (${series.shortID}): ${peerLabel(series.peer)}`;
    $("offer-result").dataset.series = series.id;
    for (const id of ["offer-amount", "offer-memo", "offer-count"]) $(id).value = "";
    await loadSubscriptions();
  }
}

const pages = { nearby: loadNearby, request: loadRequest, inbox: loadInbox, subscriptions: loadSubscriptions,
  split: loadSplit, history: loadHistory, sales: loadSales, converter: loadConverter, profile: loadProfile };

async function show() {
  const page = (location.hash || "#inbox").slice(1);
  const name = pages[page] ? page : "inbox";
  for (const key of Object.keys(pages)) $(`page-${key}`).hidden = key !== name;
  for (const link of document.querySelectorAll("nav a")) {
    if (link.getAttribute("href") === `#${name}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  try { await pages[name](); } catch (error) { notice(errorText(error)); }
  document.body.dataset.page = name;
  document.body.dataset.ready = "true";
}

/**
 * Notifications of this page: the browser asks the user once, and only from a click (browsers allow no other
 * way), so the header has a "Notify me" button while the choice is still open.
 */
function setUpNotifications() {
  const toggle = $("notify-toggle");
  const open = () => "Notification" in window && Notification.permission === "default";
  toggle.hidden = !open();
  toggle.addEventListener("click", async () => {
    await Notification.requestPermission();
    toggle.hidden = !open();
  });
}

/**
 * Tells the user of a daemon event that needs them, the ones the desktop is told of (a request to pay, an offer,
 * a pairing attempt), when the user allowed it; the peer as every view names it. Clicking it opens the page.
 */
function notify(event) {
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  let title;
  let body;
  let page;
  if (event.event === "request-received" && event.payment.state === "pending") {
    const memo = event.payment.memo ? `: ${event.payment.memo}` : "";
    [title, page] = [t("notifyRequest"), "inbox"];
    body = `${peerLabel(event.payment.peer)} ${t("asksYou")} ${money(event.payment.minorUnits, event.payment.currency)}${memo}`;
  } else if (event.event === "series-updated" && event.series.direction === "in" && event.series.shownState === "offered") {
    [title, page] = [t("notifyOffer"), "subscriptions"];
    body = `${peerLabel(event.series.peer)}: ${money(minorUnitsOf(event.series.amount), event.series.currency)} `
      + seriesEvery(event.series);
  } else if (event.event === "pairing-requested") {
    [title, page] = [t("notifyPairing"), "nearby"];
    body = peerLabel(event.peer);
  } else {
    return;
  }
  const shown = new Notification(title, { body, tag: event.payment ? event.payment.id : undefined });
  shown.onclick = () => { window.focus(); location.hash = `#${page}`; };
}

/** Reads /api/events (Server-Sent Events) with the session in a header, which EventSource cannot send, and
 * redraws the page on each event; reconnects after 3 s when the stream ends or fails. */
async function listen() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { headers: authorization(), credentials: "omit" });
      if (response.ok) {
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          const events = buffered.split("\n\n");
          buffered = events.pop();
          const data = events.map((event) => event.split("\n").filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5)).join("\n")).filter((text) => text);
          if (!data.length) continue;
          for (const text of data) {
            try { notify(JSON.parse(text)); } catch { /* not an event this page knows: nothing to tell */ }
          }
          const page = document.body.dataset.page;
          if (pages[page] && page !== "converter") pages[page]().catch((error) => notice(errorText(error)));
        }
      }
    } catch { /* the daemon stopped or the network dropped: try again below */ }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

$("language").addEventListener("change", () => {
  language = $("language").value;
  localStorage.setItem("language", language);
  translate();
  show();
});
$("request-form").addEventListener("submit", sendRequest);
$("request-amount").addEventListener("input", checkAmount);
$("request-currency").addEventListener("input", checkAmount);
$("history-form").addEventListener("change", loadHistory);
$("offer-form").addEventListener("submit", offerSeries);
$("split-form").addEventListener("submit", splitBill);
$("sales-period").addEventListener("change", loadSales);
$("convert-form").addEventListener("submit", convert);
$("currency-form").addEventListener("submit", saveCurrency);
window.addEventListener("hashchange", show);
setInterval(tick, 1000);
setUpNotifications();
translate();
listen();
show();
