#!/usr/bin/env python3
"""One side of the web scenario (IntegrationTests/scenarios/web.bash): drives a headless Debian chromium (through
chromium-driver and Selenium, nothing downloaded) against the web app of the interpayd in this network namespace. Run
inside a lan-sandbox host:

  web-browser.py alice WORK CLI SOCKET   requests 12.50 MXN from bob on the Request page, sees it accepted and paid
                                         live, confirms Received, downloads the receipt
  web-browser.py bob WORK CLI SOCKET     sees the request arrive live in the Inbox, accepts it, marks it paid,
                                         downloads the receipt, checks Sales
  web-browser.py security WORK CLI SOCKET DAEMON  the access checks, with plain HTTP requests

The two browsers meet through files in WORK. Every check prints "PASS ..." or "FAIL ..."; screenshots go to
WORK/screenshots/."""
import http.client
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

role, work, cli, socket = sys.argv[1:5]
shots = os.path.join(work, "screenshots")
os.makedirs(shots, exist_ok=True)
failures = 0


def check(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    failures += 0 if ok else 1
    return ok


def interpay(*args):
    return json.loads(subprocess.check_output([cli, *args, "--json", "--socket", socket]))


def wait_file(name, seconds=60):
    path = os.path.join(work, name)
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
        time.sleep(0.05)
    raise SystemExit(f"{role}: timed out waiting for {name}")


def signal(name, text=""):
    with open(os.path.join(work, name + ".tmp"), "w") as f:
        f.write(text)
    os.rename(os.path.join(work, name + ".tmp"), os.path.join(work, name))


def browser():
    os.environ["SE_OFFLINE"] = "true"  # Selenium must never fetch a driver or a browser
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 # The day starts with alice (English) on a wide screen and bob (Spanish) on a phone's; for the
                 # subscription each switches language and width (switch()).
                 "--window-size=1280,900" if role == "alice" else "--window-size=390,900",
                 f"--user-data-dir={work}/chromium-{role}",
                 # bob's browser asks for Spanish (Accept-Language), alice's for English.
                 "--lang=es-MX" if role == "bob" else "--lang=en-US",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": "es-MX,es" if role == "bob" else "en-US,en",
                                              # Downloads land in a directory of this role, without asking.
                                              "download.default_directory": downloads(),
                                              "download.prompt_for_download": False})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def downloads():
    path = os.path.join(work, f"downloads-{role}")
    os.makedirs(path, exist_ok=True)
    return path


def wait(driver, condition, seconds, what):
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.05).until(lambda d: condition(d))
        return True
    except Exception as error:  # a timeout is a failed check, reported with what was awaited
        print(f"  ({what}: {type(error).__name__})", flush=True)
        return False


def shot(driver, name):
    driver.save_screenshot(os.path.join(shots, f"{name}.png"))


def open_app(driver, page):
    url = interpay("web")["url"]
    driver.get(url)
    driver.get(url.split("/login")[0] + "/#" + page)
    wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), 10, "page ready")


def switch(driver, language, width):
    """The page in `language` at `width` px, as a user who picks the language and turns the phone would have it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver.set_window_size(width, 900)
    Select(driver.find_element(By.ID, "language")).select_by_value(language)
    label = {"en": "Subscriptions", "es": "Suscripciones"}[language]
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "nav a[href='#subscriptions']").text == label, 5, language)
    wide = driver.execute_script("return document.documentElement.scrollWidth")
    check(wide <= width, f"{role}'s page in {language} at {width} px is no wider than the screen ({wide} px)")


def notice_text(driver):
    from selenium.webdriver.common.by import By
    return driver.find_element(By.ID, "notice").text


def card_state(driver, payment, section):
    """The state a payment's card shows, read in one step (the list is redrawn whenever an event arrives)."""
    return driver.execute_script(
        "const c = document.querySelector(`#${arguments[0]} li[data-payment='${arguments[1]}']`);"
        "return c ? c.dataset.state : null;", section, payment)


PAGES = ["nearby", "request", "inbox", "subscriptions", "split", "history", "sales", "converter", "profile"]


def audit_pages(driver, language):
    """axe-core (as PyPI's axe-selenium-python ships it) on every page of the app, at 390 and 1280 px wide and in the
    dark theme (the system's preference, emulated): no serious or critical violation, no page wider than the
    screen. Screenshots of each page in each."""
    from axe_selenium_python import Axe
    found = []
    base = driver.current_url.split("#")[0]
    try:
        for width, scheme in ((390, "light"), (1280, "light"), (390, "dark")):
            driver.set_window_size(width, 900)
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                   {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            for page in PAGES:
                driver.get(base + "#" + page)
                wait(driver, lambda d: d.execute_script(f"return document.body.dataset.page === '{page}'"), 10, page)
                time.sleep(0.3)
                axe = Axe(driver)
                axe.inject()
                for violation in axe.run()["violations"]:
                    if violation["impact"] in ("serious", "critical"):
                        found.append(f"{page}@{width}/{scheme}: {violation['id']} ({len(violation['nodes'])} nodes)")
                overflow = driver.execute_script(
                    "return document.documentElement.scrollWidth > document.documentElement.clientWidth")
                if overflow:
                    found.append(f"{page}@{width}/{scheme}: the page is wider than the screen")
                shot(driver, f"{page}-{language}-{width}-{scheme}")
    finally:
        driver.set_window_size(420, 900)
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    check(not found, f"axe-core ({language}): no serious or critical violation and no page wider than the screen on"
                     f" any of {len(PAGES)} pages at 390 and 1280 px, light and dark ({found})")


def card_text(driver, payment, section):
    return driver.execute_script(
        "const c = document.querySelector(`#${arguments[0]} li[data-payment='${arguments[1]}']`);"
        "return c ? c.innerText : '';", section, payment)


def press(driver, payment, section, selector):
    """Clicks `selector` on a payment's card; False when the card has none (yet)."""
    return driver.execute_script(
        "const b = document.querySelector(`#${arguments[0]} li[data-payment='${arguments[1]}'] ${arguments[2]}`);"
        "if (b) b.click(); return !!b;", section, payment, selector)


def series_state(driver, series):
    return driver.execute_script(
        "const c = document.querySelector(`#series-list li[data-series='${arguments[0]}']`);"
        "return c ? c.dataset.state : null;", series)


def series_text(driver, series):
    return driver.execute_script(
        "const c = document.querySelector(`#series-list li[data-series='${arguments[0]}']`);"
        "return c ? c.innerText : '';", series)


def press_series(driver, series, selector):
    return driver.execute_script(
        "const b = document.querySelector(`#series-list li[data-series='${arguments[0]}'] ${arguments[1]}`);"
        "if (b) b.click(); return !!b;", series, selector)


def download_receipt(driver, payment, section, name):
    """Opens a settled payment's receipt on its card, clicks its download link (the browser saves the file in its
    download directory), and checks the saved file with `interpay verify-receipt` (offline, no daemon)."""
    link = f"#{section} li[data-payment='{payment}'] a.receipt-download"
    found = False
    for _ in range(5):  # a live redraw of the card may close the panel: open it again
        press(driver, payment, section, "button.receipt")
        if wait(driver, lambda d: d.execute_script("return !!document.querySelector(arguments[0])", link), 3,
                "receipt link"):
            found = True
            break
    check(found, f"{name}: the settled payment's card opens its receipt with a download link")
    if not found:
        return
    summary = driver.execute_script(
        "const s = document.querySelector(arguments[0]); return s ? s.innerText : ''",
        f"#{section} li[data-payment='{payment}'] .receipt-summary")
    words = "Recibo del pago" if driver.execute_script("return document.documentElement.lang") == "es" \
        else "Receipt for payment"
    check(summary.startswith(words) and "alice (" in summary and "bob (" in summary,
          f"{name}: the receipt's summary is in the page's language, naming both sides as signed ({summary!r})")
    filename = f"receipt-{payment[-8:]}.json"
    path = os.path.join(downloads(), filename)
    driver.execute_script("document.querySelector(arguments[0]).click()", link)
    deadline = time.time() + 10
    while time.time() < deadline and not (os.path.exists(path) and os.path.getsize(path) > 0):
        time.sleep(0.1)
    if not os.path.exists(path):
        check(False, f"{name}: the browser saved {filename} ({os.listdir(downloads())})")
        return
    os.replace(path, os.path.join(work, name))
    result = subprocess.run([cli, "verify-receipt", os.path.join(work, name)], capture_output=True, text=True)
    check(result.returncode == 0,
          f"{name}: the receipt the browser saved ({filename}) verifies offline with interpay verify-receipt"
          f" (exit {result.returncode}: {(result.stdout + result.stderr).strip()})")


def alice():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver = browser()
    try:
        open_app(driver, "request")
        wait(driver, lambda d: len(Select(d.find_element(By.ID, "request-peer")).options) > 1, 20, "bob in the picker")
        wait_file("bob-ready")
        picker = Select(driver.find_element(By.ID, "request-peer"))
        labels = [option.text for option in picker.options]
        check(picker.first_selected_option.get_attribute("value") == ""
              and any(label.startswith("bob (") and label.endswith("[unverified]") for label in labels),
              f"Request: no peer is preselected; bob, not paired, is offered as 'bob (SHORTID) [unverified]' ({labels})")
        check(driver.find_element(By.ID, "request-currency").get_attribute("value") == "USD",
              "Request: the currency starts as alice's preferred one (USD)")
        bob_option = next(o for o in picker.options if o.text.startswith("bob ("))
        picker.select_by_value(bob_option.get_attribute("value"))
        amount = driver.find_element(By.ID, "request-amount")
        def preview(d):
            return (d.find_element(By.ID, "request-preview").text, d.find_element(By.ID, "request-converted").text,
                    d.execute_script("return document.getElementById('request-amount').checkValidity()"))
        amount.send_keys("12.505")
        check(wait(driver, lambda d: preview(d) == ("USD has at most 2 decimal places, got '12.505'", "", False), 5,
                   "too many decimals"),
              f"Request: 12.505 USD is refused as typed, in the amount parser's words ({preview(driver)})")
        amount.clear()
        amount.send_keys("abc")
        check(wait(driver, lambda d: preview(d)[0].startswith("'abc' is not a number") and preview(d)[1:] == ("", False),
                   5, "letters"),
              f"Request: 'abc' is refused as not a number, and no conversion of it is previewed ({preview(driver)})")
        amount.clear()
        amount.send_keys("12,50")
        driver.find_element(By.ID, "request-currency").clear()
        driver.find_element(By.ID, "request-currency").send_keys("MXN")
        driver.find_element(By.ID, "request-memo").send_keys("tacos")
        driver.find_element(By.ID, "request-category").send_keys("food")
        check(wait(driver, lambda d: preview(d) == ("MX$12.50", "≈ $0.68", True), 5, "preview"),
              "Request: '12,50' is read as 12.50 MXN, shown with its conversion to alice's preferred currency, live"
              f" (≈ $0.68 at the fixture's 18.5 MXN/USD; {preview(driver)})")
        shot(driver, "request")
        driver.find_element(By.ID, "request-send").click()
        ok = wait(driver, lambda d: d.find_element(By.ID, "request-result").get_attribute("data-payment"), 10,
                  "payment id")
        payment = driver.find_element(By.ID, "request-result").get_attribute("data-payment") if ok else ""
        check(bool(payment), "alice requests 12.50 MXN from bob on her Request page")
        check(driver.find_element(By.ID, "request-amount").get_attribute("value") == ""
              and driver.find_element(By.ID, "request-memo").get_attribute("value") == ""
              and driver.find_element(By.ID, "request-currency").get_attribute("value") == "USD",
              "Request: the form is cleared after sending, back to the preferred currency")
        signal("alice-sent", json.dumps({"payment": payment, "at": time.time()}))
        driver.get(driver.current_url.split("#")[0] + "#inbox")
        check(wait(driver, lambda d: card_state(d, payment, "inbox-out") == "accepted", 20, "accepted on alice's page"),
              "alice's Inbox shows the request accepted, without reload")
        check(wait(driver, lambda d: "= $0.68 when accepted" in card_text(d, payment, "inbox-out"), 10, "the quote"),
              "alice's card shows the amount in her currency as quoted when it was accepted (= $0.68), as the CLI"
              " does: " + card_text(driver, payment, "inbox-out").replace("\n", " | "))
        shot(driver, "inbox-alice")
        for page in ["nearby", "history", "sales", "converter", "profile"]:
            driver.get(driver.current_url.split("#")[0] + "#" + page)
            wait(driver, lambda d: d.execute_script(f"return document.body.dataset.page === '{page}'"), 10, page)
            time.sleep(0.3)
            if page == "converter":
                driver.find_element(By.CSS_SELECTOR, "#convert-form button").click()
                check(wait(driver, lambda d: "MX$1,850.00" in d.find_element(By.ID, "convert-result").text, 10,
                           "conversion"), "Converter: 100 USD is MX$1,850.00 at the fixture's rate, with its freshness")
            if page == "profile":
                check(wait(driver, lambda d: d.execute_script(
                    "const i = document.getElementById('profile-qr'); return !i.hidden && i.naturalWidth > 0"), 5,
                    "QR code"), "Profile: the peer ID and its QR code (node-qrcode-generator)")
            shot(driver, page)
        # Settlement in the browser: bob marks it paid on his page; alice sees it and confirms Received.
        wait_file("bob-paid")
        driver.get(driver.current_url.split("#")[0] + "#inbox")
        check(wait(driver, lambda d: card_state(d, payment, "inbox-out") == "paid", 20, "paid on alice's page"),
              "alice's Inbox shows the payment paid, live")
        check("Paid with: transfer · SPEI 0042" in card_text(driver, payment, "inbox-out"),
              "her card says how bob paid and his reference: " + card_text(driver, payment, "inbox-out")
              .replace("\n", " | "))
        press(driver, payment, "inbox-out", "button.received")
        check(wait(driver, lambda d: card_state(d, payment, "inbox-out") == "settled", 20, "settled on alice's page"),
              "alice confirms Received in the browser: settled")
        time.sleep(0.5)
        download_receipt(driver, payment, "inbox-out", "receipt-alice.json")
        shot(driver, "inbox-alice-settled")
        signal("alice-settled")
        # A subscription in the browser: alice offers, bob approves with a cap on his page, alice ends it. alice now
        # in Spanish on a phone's screen, bob in English on a wide one.
        driver.get(driver.current_url.split("#")[0] + "#subscriptions")
        switch(driver, "es", 390)
        wait(driver, lambda d: len(Select(d.find_element(By.ID, "offer-peer")).options) > 1, 10, "bob in the picker")
        offer_picker = Select(driver.find_element(By.ID, "offer-peer"))
        offer_picker.select_by_value(next(o.get_attribute("value") for o in offer_picker.options
                                          if o.text.startswith("bob (")))
        driver.find_element(By.ID, "offer-currency").clear()
        driver.find_element(By.ID, "offer-currency").send_keys("EUR")
        driver.find_element(By.ID, "offer-count").send_keys("3")
        driver.find_element(By.ID, "offer-memo").send_keys("gym")
        # The daemon's refusal in the page's language (its reason and values, worded by the web app).
        driver.find_element(By.ID, "offer-amount").send_keys("1e3")
        driver.find_element(By.ID, "offer-send").click()
        check(wait(driver, lambda d: "«1e3» lleva exponente" in notice_text(d), 10, "the refusal in Spanish"),
              f"alice's Spanish page words the daemon's refusal of 1e3 in Spanish ({notice_text(driver)!r})")
        driver.find_element(By.ID, "offer-amount").clear()
        driver.find_element(By.ID, "offer-amount").send_keys("5")
        driver.find_element(By.ID, "offer-send").click()
        ok = wait(driver, lambda d: d.find_element(By.ID, "offer-result").get_attribute("data-series"), 10, "offer")
        series = driver.find_element(By.ID, "offer-result").get_attribute("data-series") if ok else ""
        check(bool(series), "alice offers bob a subscription of 5 EUR a month, 3 periods, on her Subscriptions page"
                            " (Spanish, 390 px)")
        signal("alice-offered", series)
        check(wait(driver, lambda d: series_state(d, series) == "approved", 30, "approved on alice's page"),
              "alice's Subscriptions page shows bob's approval, live: "
              + series_text(driver, series).replace("\n", " | "))
        shot(driver, "subscriptions")
        press_series(driver, series, "button.unsubscribe")
        check(wait(driver, lambda d: series_state(d, series) == "ended", 10, "ended on alice's page"),
              "alice ends the subscription in the browser")
        signal("alice-ended")
        # A refund in the browser (PROTOCOL.md §8.7): 2.50 of the settled 12.50 MXN, from the payment's card, which
        # says what is left; bob's Sales page then nets it out.
        driver.get(driver.current_url.split("#")[0] + "#inbox")
        check(wait(driver, lambda d: "12.50" in (d.execute_script(
            "const c = document.querySelector(`#inbox-out li[data-payment='${arguments[0]}'] .refund-amount`);"
            "return c ? c.placeholder : '';", payment) or ""), 10, "the Refund action"),
            "alice's settled payment has a Refund action offering all of its 12.50 MXN")
        driver.execute_script(
            "const c = document.querySelector(`#inbox-out li[data-payment='${arguments[0]}']`);"
            "c.querySelector('.refund-amount').value = '2.50'; c.querySelector('.refund-memo').value = 'one short';",
            payment)
        press(driver, payment, "inbox-out", "button.refund")
        check(wait(driver, lambda d: "10.00" in (d.execute_script(
            "const c = document.querySelector(`#inbox-out li[data-payment='${arguments[0]}'] .refund-amount`);"
            "return c ? c.placeholder : '';", payment) or ""), 10, "what is left"),
            "after refunding 2.50 in the browser, the card leaves 10.00 MXN to refund: "
            + card_text(driver, payment, "inbox-out").replace("\n", " | "))
        refunds = [p for p in interpay("list")["payments"] if p["refundOf"] == payment]
        check([(p["minorUnits"], p["state"], p["memo"]) for p in refunds] == [(250, "settled", "one short")],
              f"the ledger holds the refund, settled and linked to the payment ({refunds})")
        shot(driver, "inbox-alice-refund")
        # A split bill in the browser (PROTOCOL.md §8.8): 30.01 MXN between bob and carol, which the daemon splits to
        # the cent (15.01 and 15.00); its card says what is left; cancelling it cancels both pending shares.
        driver.get(driver.current_url.split("#")[0] + "#split")
        check(wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#split-payers input.split-payer")) >= 2,
                   10, "payers to choose"), "the Split page offers bob and carol as payers")
        for box in driver.find_elements(By.CSS_SELECTOR, "#split-payers input.split-payer"):
            box.click()
        driver.find_element(By.ID, "split-amount").send_keys("30.01")
        driver.find_element(By.ID, "split-currency").clear()
        driver.find_element(By.ID, "split-currency").send_keys("MXN")
        driver.find_element(By.ID, "split-memo").send_keys("tacos for two")
        driver.find_element(By.ID, "split-send").click()
        check(wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bill-list li[data-state='open']"), 10,
                   "the bill"), "alice splits 30.01 MXN between bob and carol in the browser: the bill is open")
        bills = interpay("bills")["bills"]
        amounts = sorted(s["amount"] for s in bills[0]["shares"]) if bills else []
        check(amounts == ["15.00", "15.01"] and bills[0]["left"] == "30.01",
              f"the daemon split it to the cent, 15.01 and 15.00, all of it left ({amounts})")
        shot(driver, "split-alice")
        driver.execute_script("document.querySelector('#bill-list li button.cancel-bill').click()")
        check(wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#bill-list li[data-state='failed']"), 10,
                   "the bill cancelled"), "Cancel on the bill's card cancels both pending shares: failed")
        audit_pages(driver, "en")
        other_port_server(driver)
        signal("alice-done")
    finally:
        driver.quit()


def other_port_server(driver):
    """Another local user's server on another port of 127.0.0.1: a page of it, loaded in the browser that is logged
    in to the web app, must receive nothing of the session (SECURITY.md W-COOKIE). Cookies are not kept apart by
    port; a session kept in one reached every server of the host."""
    import http.server
    import threading
    received = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            received.append(self.headers.get("Cookie") or "")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>another server</title>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/")
        session = driver.execute_script("return document.title")
    finally:
        server.shutdown()
    check(session == "another server" and received and not any("interpay" in cookie for cookie in received),
          f"a server on another port of 127.0.0.1 gets no session from the logged-in browser (Cookie: {received})")


def bob():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    driver = browser()
    try:
        open_app(driver, "inbox")
        check(driver.find_element(By.ID, "notify-toggle").is_displayed(),
              "bob's page offers to notify him (the browser asks only after his click)")
        # bob allowed notifications (as clicking "Avisarme" would); the page's Notification calls are recorded.
        origin = driver.current_url.split("/#")[0]
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
        driver.refresh()
        wait(driver, lambda d: d.execute_script("return document.body.dataset.ready === 'true'"), 10, "page ready")
        driver.execute_script("""
            window.shownNotifications = [];
            const Real = window.Notification;
            window.Notification = class extends Real {
              constructor(title, options) { super(title, options); window.shownNotifications.push([title, options.body]); }
            };""")
        check(driver.execute_script("return Notification.permission") == "granted"
              and not driver.find_element(By.ID, "notify-toggle").is_displayed(),
              "once allowed, the offer to notify is gone")
        signal("bob-ready")
        sent = json.loads(wait_file("alice-sent"))
        payment = sent["payment"]
        arrived = wait(driver, lambda d: card_state(d, payment, "inbox-in") == "pending", 10, "request in bob's inbox")
        delay = time.time() - sent["at"]
        check(arrived and delay <= 2.0, f"bob's open Inbox shows the request without reload ({delay:.2f} s after it was sent)")
        card = driver.execute_script(
            "const c = document.querySelector(`#inbox-in li[data-payment='${arguments[0]}']`); return c ? c.innerText : ''",
            payment)
        check("alice (" in card and "[sin verificar]" in card and payment[-8:] in card,
              "bob's Inbox (Spanish) names alice with her short ID, marked [sin verificar], and the payment's short ID: "
              + card.replace("\n", " | "))
        shot(driver, "inbox")
        shown = driver.execute_script("return window.shownNotifications")
        check(any(title == "Solicitud de pago" and body.startswith("alice (") and "[sin verificar] te pide $12.50" in body
                  and body.endswith(": tacos") for title, body in shown),
              f"bob's browser shows a notification of the request, naming alice as every view does ({shown})")
        # A live event redraws the Inbox: the focused Accept button keeps the focus (the card is updated in place).
        driver.execute_script(
            "document.querySelector(`#inbox-in li[data-payment='${arguments[0]}'] button.accept`).focus()", payment)
        # bob asks alice for money and withdraws it: the cancel is a live event on bob's page.
        other = interpay("send", "alice", "1.00", "MXN", "--memo", "focus check")["id"]
        interpay("cancel", other)
        shown = wait(driver, lambda d: d.execute_script(
            "return !!document.querySelector(`#inbox-out li[data-payment='${arguments[0]}']`)", other), 10,
            "bob's own request in his Inbox")
        focused = driver.execute_script(
            "const a = document.activeElement; return !!a && a.classList.contains('accept')"
            " && a.closest('li').dataset.payment === arguments[0]", payment)
        check(shown and focused, "a live redraw of bob's Inbox keeps the keyboard focus on the Accept button")
        driver.execute_script(
            "document.querySelector(`#inbox-in li[data-payment='${arguments[0]}'] button.accept`).click()", payment)
        check(wait(driver, lambda d: card_state(d, payment, "inbox-in") == "accepted", 10, "accepted on bob's page"),
              "bob accepts; his Inbox shows it accepted")
        shot(driver, "inbox-bob-accepted")
        # Once alice's daemon confirmed the acceptance, the card offers Mark paid with a method and a reference.
        check(wait(driver, lambda d: d.execute_script(
            "return !!document.querySelector(`#inbox-in li[data-payment='${arguments[0]}'] form.settle`)", payment),
            20, "Mark paid"), "bob's accepted request offers Mark paid (method and reference)")
        driver.execute_script("""
            const form = document.querySelector(`#inbox-in li[data-payment='${arguments[0]}'] form.settle`);
            form.querySelector('select.paid-method').value = 'transfer';
            form.querySelector('input.paid-reference').value = 'SPEI 0042';
            form.querySelector('button.paid').click();""", payment)
        check(wait(driver, lambda d: card_state(d, payment, "inbox-in") == "paid", 10, "paid on bob's page"),
              "bob marks it paid by transfer in the browser: "
              + card_text(driver, payment, "inbox-in").replace("\n", " | "))
        shot(driver, "inbox-bob-paid")
        signal("bob-paid")
        wait_file("alice-settled")
        check(wait(driver, lambda d: card_state(d, payment, "inbox-in") == "settled"
                   and d.execute_script("return !!document.querySelector("
                                        "`#inbox-in li[data-payment='${arguments[0]}'] button.receipt`)", payment),
                   20, "settled with a receipt on bob's page"),
              "bob's Inbox shows it settled, with the receipt alice's daemon signed")
        time.sleep(0.5)
        download_receipt(driver, payment, "inbox-in", "receipt-bob.json")
        shot(driver, "inbox-bob-settled")
        series = wait_file("alice-offered")
        driver.get(driver.current_url.split("#")[0] + "#subscriptions")
        switch(driver, "en", 1280)
        check(wait(driver, lambda d: series_state(d, series) == "offered", 20, "the offer on bob's page"),
              "bob's Subscriptions page shows alice's offer with its real period, alice unverified: "
              + series_text(driver, series).replace("\n", " | "))
        alice_short = interpay("subscriptions")["series"][0]["peer"]["shortID"]
        driver.execute_script("""
            const card = document.querySelector(`#series-list li[data-series='${arguments[0]}']`);
            card.querySelector('input.approve-cap').value = '-1';
            card.querySelector('input.approve-peer').value = arguments[1];
            card.querySelector('button.approve').click();""", series, alice_short)
        check(wait(driver, lambda d: "'-1' is negative" in notice_text(d), 10, "the refusal in English"),
              f"bob's English page shows the daemon's own sentence for a cap of -1 ({notice_text(driver)!r})")
        driver.execute_script("""
            const card = document.querySelector(`#series-list li[data-series='${arguments[0]}']`);
            card.querySelector('input.approve-cap').value = '6';
            card.querySelector('input.approve-peer').value = arguments[1];
            card.querySelector('button.approve').click();""", series, alice_short)
        check(wait(driver, lambda d: series_state(d, series) == "approved", 10, "approved on bob's page"),
              "bob approves it in the browser with a cap of 6 EUR, naming alice by her short ID: "
              + series_text(driver, series).replace("\n", " | "))
        check(interpay("subscriptions")["series"][0]["cap"] == "6.00", "the approval's cap is 6.00 EUR")
        shot(driver, "subscriptions-es")
        wait_file("alice-ended")
        check(wait(driver, lambda d: series_state(d, series) == "ended", 20, "ended on bob's page"),
              "bob's page shows the subscription ended by alice, live")
        switch(driver, "es", 390)
        wait_file("alice-done")
        driver.get(driver.current_url.split("#")[0] + "#sales")
        Select(driver.find_element(By.ID, "sales-period")).select_by_value("week")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#sales-rows tr"), 10, "sales rows")
        time.sleep(0.5)
        stats = interpay("stats", "--period", "week")["rows"]
        shown = {(r.get_attribute("data-direction"), r.get_attribute("data-currency")):
                 int(r.find_element(By.CSS_SELECTOR, ".total").get_attribute("data-minor"))
                 for r in driver.find_elements(By.CSS_SELECTOR, "#sales-rows tr")}
        wanted = {(r["direction"], r["currency"]): r["totalMinor"] for r in stats}
        # 12.50 MXN paid, less the 2.50 alice refunded in her browser.
        check(shown == wanted and wanted.get(("in", "MXN")) == 1000,
              f"bob's Sales totals equal interpay stats --json, the refund netted out ({shown} vs {wanted})")
        wait(driver, lambda d: d.execute_script("return !!window.Chart"), 5, "Chart.js")
        time.sleep(0.3)
        pixels = driver.execute_script("""
            const c = document.getElementById('sales-chart');
            const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let n = 0; for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++; return n;""")
        check(pixels > 500, f"the Sales chart is drawn ({pixels} non-blank pixels)")
        charted = driver.find_element(By.ID, "sales-chart").get_attribute("data-currencies").split()
        check(set(charted) >= {r["currency"] for r in stats} and len(charted) >= 2,
              f"the Sales chart has a line for every currency ({charted}; stats: {sorted({r['currency'] for r in stats})})")
        check(driver.find_element(By.CSS_SELECTOR, "nav a[href='#sales']").text == "Ventas"
              and "$10.00" in driver.find_element(By.ID, "sales-rows").text,
              "Spanish from Accept-Language (es-MX): 'Ventas', amounts as es-MX ($10.00): "
              + driver.find_element(By.ID, "sales-rows").text.replace("\n", " | "))
        shot(driver, "sales-es")
        Select(driver.find_element(By.ID, "language")).select_by_value("en")
        check(wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "nav a[href='#sales']").text == "Sales", 5,
                   "en"), "switched to English: 'Sales'")
        shot(driver, "sales-bob")
        Select(driver.find_element(By.ID, "language")).select_by_value("es")
        audit_pages(driver, "es")
    finally:
        driver.quit()


def request(url, method="GET", headers=None, host=None):
    req = urllib.request.Request(url, method=method, headers=headers or {}, data=b"{}" if method == "POST" else None)
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def security():
    daemon = sys.argv[5]
    web = interpay("web")
    # The URL carries a one-time login code; scripts use the token of the state directory.
    with open(os.path.join(work, "alice", "web-token")) as file:
        token = file.read().strip()
    base = f"http://127.0.0.1:{web['port']}"
    status = interpay("status")
    check(status.get("webPort") == web["port"] and web["port"] not in (0, 7780),
          f"--web 127.0.0.1:0 picks a free port and status reports it (webPort {status.get('webPort')})")
    code, headers, _ = request(base + "/api/status")
    check(code == 401, f"no token: 401 (got {code})")
    check("default-src 'self'" in headers.get("Content-Security-Policy", "")
          and "frame-ancestors 'none'" in headers.get("Content-Security-Policy", "")
          and headers.get("X-Content-Type-Options") == "nosniff"
          and not any(h.lower().startswith("access-control") for h in headers),
          "CSP default-src 'self' and frame-ancestors 'none', nosniff, no CORS header")
    # The URL of `interpay web` logs in once; the session is in the page, not in a cookie, and is not the token
    # (SECURITY.md W-TOKEN-ARGV, W-COOKIE).
    login = urllib.parse.urlsplit(interpay("web")["url"])
    answers = []
    for _ in range(2):
        connection = http.client.HTTPConnection("127.0.0.1", web["port"], timeout=5)
        connection.request("GET", f"{login.path}?{login.query}")
        answer = connection.getresponse()
        page = answer.read().decode()
        found = page.split('<meta name="interpay-session" content="', 1)[1:]
        answers.append((answer.status, answer.getheader("Set-Cookie"), found[0].split('"', 1)[0] if found else ""))
        connection.close()
    status_code, cookie, session = answers[0]
    check(status_code == 200 and cookie is None and len(session) == 64 and session != token,
          f"the login URL opens a session, in the page and not in a cookie, that is not the token ({status_code})")
    check(answers[1][0] == 401, f"the login URL works once ({answers[1][0]})")
    code, _, _ = request(base + "/api/status", headers={"Authorization": f"Bearer {session}"})
    check(code == 200, f"the session is let in as a bearer credential ({code})")
    for value in [session, token]:
        code, _, _ = request(base + "/api/status", headers={"Cookie": f"interpay_session={value}"})
        check(code == 401, f"a cookie is never a credential ({code})")
    # The router matches `//api/status` to /api/status: the credential check must hold there too.
    for method, path in [("GET", "//api/status"), ("GET", "//api/events"), ("POST", "//api/currency")]:
        connection = http.client.HTTPConnection("127.0.0.1", web["port"], timeout=5)
        connection.request(method, path, body=b'{"code":"JPY"}' if method == "POST" else None,
                           headers={"Origin": base, "Content-Type": "application/json"})
        code = connection.getresponse().status
        connection.close()
        check(code == 401, f"{method} {path} without a credential: 401 (got {code})")
    # With a display, `interpay web` hands xdg-open a page only the user may read, never the URL with its code.
    # The stub and the page it is handed live in one directory, removed however the check ends.
    stub = tempfile.mkdtemp(prefix="xdg-open.")
    try:
        with open(os.path.join(stub, "xdg-open"), "w") as file:
            file.write('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/argv"\n')
        os.chmod(os.path.join(stub, "xdg-open"), 0o755)
        environment = dict(os.environ, PATH=stub + ":" + os.environ.get("PATH", ""), DISPLAY=":99",
                           XDG_RUNTIME_DIR=stub)
        subprocess.run([cli, "web", "--socket", socket], env=environment, capture_output=True, timeout=10)
        deadline = time.time() + 10
        while not os.path.exists(os.path.join(stub, "argv")) and time.time() < deadline:
            time.sleep(0.1)
        with open(os.path.join(stub, "argv")) as file:
            opened = file.read().strip()
        page = open(opened).read() if os.path.isfile(opened) else ""
        check("code=" not in opened and "login?code=" in page
              and stat.S_IMODE(os.stat(opened).st_mode) == 0o600
              and stat.S_IMODE(os.stat(os.path.dirname(opened)).st_mode) == 0o700,
              f"xdg-open gets a page of mode 0600 in a 0700 directory, not the login URL ({opened})")
    finally:
        shutil.rmtree(stub, ignore_errors=True)
    code, _, body = request(base + "/api/status", headers={"Authorization": f"Bearer {token}"})
    check(code == 200 and json.loads(body) == {**status, "uptimeSeconds": json.loads(body)["uptimeSeconds"]},
          "GET /api/status with the token answers what interpay status --json answers")
    code, _, _ = request(base + "/api/status", headers={"Authorization": f"Bearer {token}"},
                         host=f"attacker.example:{web['port']}")
    check(code in (421, 403), f"wrong Host (DNS rebinding): {code}")
    for path in ["/api/send", "/api/nothing", "/"]:
        code, _, _ = request(base + path, "POST", headers={"Authorization": f"Bearer {token}",
                                                           "Origin": "http://attacker.example",
                                                           "Content-Type": "application/json"})
        check(code == 403, f"cross-origin POST {path}: 403 (got {code})")
    mode = stat.S_IMODE(os.stat(os.path.join(work, "alice", "web-token")).st_mode)
    check(mode == 0o600, f"the token file is 0600 ({oct(mode)})")
    for address in [f"{os.environ.get('LAN_SANDBOX_ADDR', '198.18.0.1')}:7780", "0.0.0.0:7780", "[::]:7780"]:
        result = subprocess.run([daemon, "--check-config", "--web", address, "--state-dir", f"{work}/unused"],
                                capture_output=True, text=True)
        check(result.returncode == 78 and "not a loopback address" in result.stderr,
              f"--web {address} refused (exit {result.returncode}): {result.stderr.strip()}")


{"alice": alice, "bob": bob, "security": security}[role]()
sys.exit(1 if failures else 0)
