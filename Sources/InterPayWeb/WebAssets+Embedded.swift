// Written by scripts/embed-web-assets from Sources/InterPayWeb/Assets/: do not edit.

extension WebAssets {
    /// Every asset by file name: its content type and text.
    static let files: [String: (contentType: String, body: String)] = [
        "app.js": (
            "text/javascript; charset=utf-8",
            ##"""
            // The InterPay web app: every call goes to the daemon's control methods under /api/ (the CLI's methods), and the
            // daemon's events arrive on /api/events (Server-Sent Events). The session cookie carries the access token.
            import { strings } from "/assets/i18n.js";

            const $ = (id) => document.getElementById(id);
            // The language the user chose here, else the one the daemon picked from Accept-Language (<html lang>).
            let language = localStorage.getItem("language") || document.documentElement.lang || "en";
            if (!strings[language]) language = "en";
            const t = (key) => strings[language][key] || strings.en[key] || key;
            let peers = [];

            async function api(method, params) {
              const options = params === undefined
                ? { method: "GET" }
                : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(params) };
              const response = await fetch(`/api/${method}`, { credentials: "same-origin", ...options });
              const body = await response.json();
              if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
              return body;
            }

            /** The number of decimals of a currency (JPY 0, MXN 2, KWD 3). */
            export function decimals(currency) {
              try { return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits; }
              catch { return 2; }
            }

            /** An amount given in minor units, formatted for the language with the currency's own decimals. */
            export function money(minorUnits, currency) {
              const digits = decimals(currency);
              const locale = language === "es" ? "es-MX" : "en-US";
              try {
                return new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: digits,
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

            function peerLabel(peer) {
              const name = peer.name || peer.shortID;
              const trust = typeof peer.trust === "string" ? peer.trust : peer.trust && peer.trust.state;
              return trust === "paired" ? name : `${name} [${t("unverified")}]`;
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
                row.append(element("td", peer.name || "-"), element("td", peer.shortID, { class: "mono" }),
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
                if (peer.trust.pairing === "code" && peer.trust.code) pairingPeer = peer;
              }
              $("pairing").hidden = !pairingPeer;
              if (pairingPeer) {
                $("pairing-code").textContent = pairingPeer.trust.code;
                $("pairing-confirm").onclick = () =>
                  act("pair", { peer: pairingPeer.id, code: pairingPeer.trust.code }, loadNearby);
              }
              const select = $("request-peer");
              const chosen = select.value;
              select.replaceChildren(...peers.filter((peer) => peer.session === "up")
                .map((peer) => element("option", `${peerLabel(peer)} (${peer.shortID})`, { value: peer.id })));
              if (chosen) select.value = chosen;
            }

            async function act(method, params, then) {
              try {
                notice("");
                const result = await api(method, params);
                if (then) await then(result);
                return result;
              } catch (error) {
                notice(error.message);
              }
            }

            let preferred = null;
            let previewTimer = null;

            /** The amount in the preferred currency, fetched (debounced) as the user types. */
            function previewConverted(amount, currency) {
              clearTimeout(previewTimer);
              $("request-converted").textContent = "";
              if (!preferred || preferred === currency) return;
              previewTimer = setTimeout(async () => {
                try {
                  const quote = await api("convert", { amount, from: currency, to: preferred });
                  $("request-converted").textContent = `≈ ${money(quote.minorUnits, quote.currency)}`;
                } catch (error) {
                  $("request-converted").textContent = "";
                }
              }, 250);
            }

            function amountIsValid() {
              const currency = $("request-currency").value.toUpperCase();
              const digits = decimals(currency);
              const pattern = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+(\\.\\d{1,${digits}})?$`);
              const input = $("request-amount");
              const ok = pattern.test(input.value);
              input.setCustomValidity(ok ? "" : `${t("decimals")} ${digits}`);
              $("request-preview").textContent = ok
                ? money(Math.round(Number(input.value) * 10 ** digits), currency) : `${t("decimals")} ${digits}`;
              if (ok) previewConverted(input.value, currency);
              return ok;
            }

            async function sendRequest(event) {
              event.preventDefault();
              if (!amountIsValid()) return;
              const params = {
                peer: $("request-peer").value, amount: $("request-amount").value,
                currency: $("request-currency").value.toUpperCase(), memo: $("request-memo").value,
                expiresInSeconds: Number($("request-expiry").value || 15) * 60,
              };
              if ($("request-category").value) params.category = $("request-category").value;
              const payment = await act("send", params);
              if (payment) {
                $("request-result").textContent = `${t("requested")} ${money(payment.minorUnits, payment.currency)}`;
                $("request-result").dataset.payment = payment.id;
                $("request-result").dataset.state = payment.state;
                await loadInbox();
              }
            }

            function paymentCard(payment) {
              const item = element("li", undefined, { "data-payment": payment.id, "data-state": payment.state });
              item.append(element("div", money(payment.minorUnits, payment.currency), { class: "amount" }),
                element("div", `${payment.direction === "in" ? t("from") : t("to")}: ${peerLabel(payment.peer)}`,
                  payment.peer.trust === "paired" ? {} : { class: "unverified" }),
                element("div", payment.memo || ""),
                element("div", `${t("state")}: ${t(payment.state)}`, { class: "state" }));
              if (payment.state === "pending") {
                const left = element("div", "", { class: "muted expiry", "data-expires": payment.expiresAt });
                item.append(left);
                const buttons = payment.direction === "in"
                  ? [["accept", "accept", ""], ["reject", "reject", "secondary"]] : [["cancel", "cancel", "secondary"]];
                for (const [method, label, style] of buttons) {
                  const button = element("button", t(label), { type: "button", class: `${style} ${method}` });
                  button.addEventListener("click", () => act(method, { payment: payment.id }, loadInbox));
                  item.append(button);
                }
              }
              return item;
            }

            async function loadInbox() {
              const { payments } = await api("list", { limit: 50 });
              const recent = payments.filter((p) => p.state === "pending" || Date.now() / 1000 - p.updatedAt < 3600);
              $("inbox-in").replaceChildren(...recent.filter((p) => p.direction === "in").map(paymentCard));
              $("inbox-out").replaceChildren(...recent.filter((p) => p.direction === "out").map(paymentCard));
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
                row.append(element("td", new Date(p.createdAt * 1000).toLocaleString(language)), element("td", peerLabel(p.peer)),
                  element("td", money(p.minorUnits, p.currency)), element("td", t(p.state)), element("td", p.memo),
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
              const currency = rows.length ? rows[0].currency : (counted[0] || {}).currency || "MXN";
              const labels = [];
              const totals = [];
              const today = new Date(); today.setHours(0, 0, 0, 0);
              for (let day = days - 1; day >= 0; day--) {
                const start = new Date(today); start.setDate(today.getDate() - day);
                const end = new Date(start); end.setDate(start.getDate() + 1);
                labels.push(start.toLocaleDateString(language, { month: "short", day: "numeric" }));
                const sum = counted.filter((p) => p.currency === currency && p.createdAt * 1000 >= start && p.createdAt * 1000 < end)
                  .reduce((total, p) => total + p.minorUnits, 0);
                totals.push(sum / 10 ** decimals(currency));
              }
              if (!window.Chart) { notice(t("noChart")); return; }
              if (chart) chart.destroy();
              chart = new window.Chart($("sales-chart"), {
                type: "line",
                data: { labels, datasets: [{ label: `${t("total")} ${currency}`, data: totals, fill: true, tension: 0.2,
                  borderColor: "#0b3d91", backgroundColor: "rgba(11, 61, 145, 0.25)" }] },
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

            async function loadProfile() {
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
                $("rates-freshness").textContent = error.message;
              }
            }

            async function loadRequest() {
              preferred = (await api("status")).currency;
              await loadNearby();
            }

            const pages = { nearby: loadNearby, request: loadRequest, inbox: loadInbox, history: loadHistory, sales: loadSales,
              converter: loadConverter, profile: loadProfile };

            async function show() {
              const page = (location.hash || "#inbox").slice(1);
              const name = pages[page] ? page : "inbox";
              for (const key of Object.keys(pages)) $(`page-${key}`).hidden = key !== name;
              for (const link of document.querySelectorAll("nav a")) {
                if (link.getAttribute("href") === `#${name}`) link.setAttribute("aria-current", "page");
                else link.removeAttribute("aria-current");
              }
              try { await pages[name](); } catch (error) { notice(error.message); }
              document.body.dataset.page = name;
              document.body.dataset.ready = "true";
            }

            function listen() {
              const events = new EventSource("/api/events");
              events.onmessage = () => {
                const page = document.body.dataset.page;
                if (pages[page] && page !== "converter") pages[page]().catch((error) => notice(error.message));
              };
            }

            $("language").addEventListener("change", () => {
              language = $("language").value;
              localStorage.setItem("language", language);
              translate();
              show();
            });
            $("request-form").addEventListener("submit", sendRequest);
            $("request-amount").addEventListener("input", amountIsValid);
            $("request-currency").addEventListener("input", amountIsValid);
            $("history-form").addEventListener("change", loadHistory);
            $("sales-period").addEventListener("change", loadSales);
            $("convert-form").addEventListener("submit", convert);
            window.addEventListener("hashchange", show);
            setInterval(tick, 1000);
            translate();
            listen();
            show();
            """##
        ),
        "i18n.js": (
            "text/javascript; charset=utf-8",
            ##"""
            // The web app's words in English and Spanish.
            export const strings = {
              en: {
                language: "Language", nearby: "Nearby", request: "Request", inbox: "Inbox", history: "History", sales: "Sales",
                converter: "Converter", profile: "Profile", name: "Name", shortID: "Short ID", session: "Session", trust: "Trust",
                compare: "Compare this code with the one on the other screen, then confirm it on both sides.",
                confirm: "Codes match: confirm", peer: "Peer", amount: "Amount", currency: "Currency", memo: "Memo",
                category: "Category", expiry: "Expires in (minutes)", send: "Request", incoming: "Incoming", outgoing: "Outgoing",
                state: "State", any: "Any", direction: "Direction", in: "In", out: "Out", since: "Since", when: "When",
                period: "Period", week: "Week", month: "Month", count: "Count", total: "Total", average: "Average",
                byCategory: "By category", from: "From", to: "To", convert: "Convert", peerID: "Peer ID", version: "Version",
                unverified: "unverified", paired: "paired", up: "up", down: "down", pair: "Pair", untrust: "Untrust",
                accept: "Accept", reject: "Reject", cancel: "Cancel", pending: "pending", accepted: "accepted", paid: "paid",
                settled: "settled", rejected: "rejected", cancelled: "cancelled", expired: "expired", requested: "Requested",
                expiresIn: "Expires in", decimals: "Decimals at most:", rate: "rate", stale: "stale rates", none: "none",
                noChart: "Chart.js is not installed (Debian: libjs-chart.js).", quote: "Quote", rename: "Rename",
                ratesFrom: "Rates from",
              },
              es: {
                language: "Idioma", nearby: "Cerca", request: "Cobrar", inbox: "Bandeja", history: "Historial", sales: "Ventas",
                converter: "Conversor", profile: "Perfil", name: "Nombre", shortID: "ID corto", session: "Sesión",
                trust: "Confianza", compare: "Compara este código con el de la otra pantalla y confírmalo en ambos lados.",
                confirm: "Los códigos coinciden: confirmar", peer: "Contacto", amount: "Importe", currency: "Moneda",
                memo: "Concepto", category: "Categoría", expiry: "Vence en (minutos)", send: "Cobrar", incoming: "Recibidas",
                outgoing: "Enviadas", state: "Estado", any: "Cualquiera", direction: "Sentido", in: "Entrante", out: "Saliente",
                since: "Desde", when: "Fecha", period: "Periodo", week: "Semana", month: "Mes", count: "Cantidad",
                total: "Total", average: "Promedio", byCategory: "Por categoría", from: "De", to: "A", convert: "Convertir",
                peerID: "ID del nodo", version: "Versión", unverified: "sin verificar", paired: "emparejado", up: "activa",
                down: "inactiva", pair: "Emparejar", untrust: "Olvidar", accept: "Aceptar", reject: "Rechazar",
                cancel: "Cancelar", pending: "pendiente", accepted: "aceptado", paid: "pagado", settled: "liquidado",
                rejected: "rechazado", cancelled: "cancelado", expired: "vencido", requested: "Cobro enviado",
                expiresIn: "Vence en", decimals: "Decimales como máximo:", rate: "tipo", stale: "tipos desactualizados",
                none: "ninguna", noChart: "Chart.js no está instalado (Debian: libjs-chart.js).", quote: "Cotización",
                rename: "Renombrar", ratesFrom: "Tipos de",
              },
            };
            """##
        ),
        "index.html": (
            "text/html; charset=utf-8",
            ##"""
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>InterPay</title>
            <link rel="stylesheet" href="/assets/style.css">
            <script src="/vendor/chart.js" defer></script>
            <script src="/vendor/qrcode.js" defer></script>
            <script type="module" src="/assets/app.js"></script>
            </head>
            <body>
            <header>
              <h1>InterPay</h1>
              <label><span data-t="language">Language</span>
                <select id="language"><option value="en">English</option><option value="es">Español</option></select>
              </label>
            </header>
            <nav aria-label="Pages">
              <a href="#nearby" data-t="nearby">Nearby</a>
              <a href="#request" data-t="request">Request</a>
              <a href="#inbox" data-t="inbox">Inbox</a>
              <a href="#history" data-t="history">History</a>
              <a href="#sales" data-t="sales">Sales</a>
              <a href="#converter" data-t="converter">Converter</a>
              <a href="#profile" data-t="profile">Profile</a>
            </nav>
            <p id="notice" role="status" aria-live="polite"></p>
            <main>
            <section id="page-nearby" hidden>
              <h2 data-t="nearby">Nearby</h2>
              <table><thead><tr><th data-t="name">Name</th><th data-t="shortID">Short ID</th><th data-t="session">Session</th>
                <th data-t="trust">Trust</th><th></th></tr></thead><tbody id="peers"></tbody></table>
              <div id="pairing" hidden>
                <p data-t="compare">Compare this code with the one on the other screen, then confirm it on both sides.</p>
                <p id="pairing-code" class="code"></p>
                <button id="pairing-confirm" type="button" data-t="confirm">Codes match: confirm</button>
              </div>
            </section>
            <section id="page-request" hidden>
              <h2 data-t="request">Request</h2>
              <form id="request-form">
                <label><span data-t="peer">Peer</span><select id="request-peer" name="peer" required></select></label>
                <label><span data-t="amount">Amount</span><input id="request-amount" name="amount" inputmode="decimal" required autocomplete="off"></label>
                <label><span data-t="currency">Currency</span><input id="request-currency" name="currency" value="MXN" maxlength="3" required></label>
                <p id="request-preview" class="muted"></p>
                <p id="request-converted" class="muted" aria-live="polite"></p>
                <label><span data-t="memo">Memo</span><input id="request-memo" name="memo" maxlength="140"></label>
                <label><span data-t="category">Category</span><input id="request-category" name="category" maxlength="40"></label>
                <label><span data-t="expiry">Expires in (minutes)</span><input id="request-expiry" name="expiry" type="number" min="1" max="43200" value="15"></label>
                <button id="request-send" type="submit" data-t="send">Request</button>
              </form>
              <p id="request-result" role="status"></p>
            </section>
            <section id="page-inbox" hidden>
              <h2 data-t="incoming">Incoming</h2>
              <ul id="inbox-in" class="cards"></ul>
              <h2 data-t="outgoing">Outgoing</h2>
              <ul id="inbox-out" class="cards"></ul>
            </section>
            <section id="page-history" hidden>
              <h2 data-t="history">History</h2>
              <form id="history-form" class="filters">
                <label><span data-t="state">State</span><select id="history-state"><option value="" data-t="any">Any</option>
                  <option>pending</option><option>accepted</option><option>paid</option><option>settled</option>
                  <option>rejected</option><option>cancelled</option><option>expired</option></select></label>
                <label><span data-t="direction">Direction</span><select id="history-direction"><option value="" data-t="any">Any</option>
                  <option value="in" data-t="in">In</option><option value="out" data-t="out">Out</option></select></label>
                <label><span data-t="peer">Peer</span><input id="history-peer"></label>
                <label><span data-t="since">Since</span><input id="history-since" type="date"></label>
              </form>
              <table><thead><tr><th data-t="when">When</th><th data-t="peer">Peer</th><th data-t="amount">Amount</th>
                <th data-t="state">State</th><th data-t="memo">Memo</th><th data-t="quote">Quote</th></tr></thead><tbody id="history-rows"></tbody></table>
            </section>
            <section id="page-sales" hidden>
              <h2 data-t="sales">Sales</h2>
              <label><span data-t="period">Period</span><select id="sales-period">
                <option value="week" data-t="week">Week</option><option value="month" data-t="month">Month</option></select></label>
              <table><thead><tr><th data-t="direction">Direction</th><th data-t="currency">Currency</th><th data-t="count">Count</th>
                <th data-t="total">Total</th><th data-t="average">Average</th></tr></thead><tbody id="sales-rows"></tbody></table>
              <h3 data-t="byCategory">By category</h3>
              <ul id="sales-categories"></ul>
              <canvas id="sales-chart" width="600" height="260" aria-label="Sales chart" role="img"></canvas>
            </section>
            <section id="page-converter" hidden>
              <h2 data-t="converter">Converter</h2>
              <form id="convert-form">
                <label><span data-t="amount">Amount</span><input id="convert-amount" value="100" inputmode="decimal"></label>
                <label><span data-t="from">From</span><input id="convert-from" value="USD" maxlength="3"></label>
                <label><span data-t="to">To</span><input id="convert-to" value="MXN" maxlength="3"></label>
                <button type="submit" data-t="convert">Convert</button>
              </form>
              <p id="convert-result" role="status"></p>
              <p id="rates-freshness" class="muted"></p>
            </section>
            <section id="page-profile" hidden>
              <h2 data-t="profile">Profile</h2>
              <dl><dt data-t="name">Name</dt><dd id="profile-name"></dd><dt data-t="peerID">Peer ID</dt><dd id="profile-id" class="mono"></dd>
                <dt data-t="shortID">Short ID</dt><dd id="profile-short" class="mono"></dd><dt data-t="version">Version</dt><dd id="profile-version"></dd></dl>
              <img id="profile-qr" alt="" hidden>
            </section>
            </main>
            </body>
            </html>
            """##
        ),
        "style.css": (
            "text/css; charset=utf-8",
            ##"""
            :root { font-family: system-ui, sans-serif; color: #111; background: #fafafa; }
            body { margin: 0 auto; max-width: 56rem; padding: 0.5rem; }
            header { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
            h1 { font-size: 1.4rem; margin: 0.3rem 0; }
            nav { display: flex; flex-wrap: wrap; gap: 0.25rem; margin-bottom: 0.5rem; }
            nav a { padding: 0.5rem 0.7rem; border: 1px solid #555; border-radius: 0.3rem; color: #0b3d91; text-decoration: none; }
            nav a[aria-current="page"] { background: #0b3d91; color: #fff; }
            a:focus, button:focus, input:focus, select:focus { outline: 3px solid #e07b00; outline-offset: 1px; }
            label { display: block; margin: 0.4rem 0; }
            label span { display: block; font-weight: 600; }
            input, select, button { font-size: 1rem; padding: 0.4rem; max-width: 100%; }
            button { background: #0b3d91; color: #fff; border: 0; border-radius: 0.3rem; cursor: pointer; margin: 0.2rem 0.2rem 0.2rem 0; }
            button.secondary { background: #6b1010; }
            table { border-collapse: collapse; width: 100%; }
            th, td { text-align: left; padding: 0.3rem; border-bottom: 1px solid #ccc; }
            .cards { list-style: none; padding: 0; }
            .cards li { border: 1px solid #999; border-radius: 0.4rem; padding: 0.5rem; margin: 0.4rem 0; background: #fff; }
            .amount { font-size: 1.3rem; font-weight: 700; }
            .unverified { color: #8a1500; font-weight: 700; }
            .code { font-size: 3rem; letter-spacing: 0.3rem; font-family: monospace; }
            .mono { font-family: monospace; word-break: break-all; }
            .muted { color: #444; }
            .filters { display: flex; flex-wrap: wrap; gap: 0.6rem; }
            #notice:empty { display: none; }
            #notice { background: #fff3cd; padding: 0.4rem; }
            canvas { max-width: 100%; }
            @media (max-width: 30rem) { th, td { font-size: 0.85rem; } .code { font-size: 2.2rem; } }
            """##
        ),
    ]
}
