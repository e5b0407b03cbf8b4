"""A real `caucus serve` and headless Chromium pages for the console tests."""

import base64
import json
import os
import pathlib
import re
import sys
import unittest
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "PythonSupport"))
from caucus_server import CaucusServer, WAIT_SECONDS  # noqa: E402  (the path is set just above)

SCREENSHOTS = ROOT / ".build" / "console-screenshots"
# Each session's participant link, as its host's page shows it, for the participants' `join`.
PARTICIPANT_LINKS = {}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")


def chromium(extra_arguments=()):
    options = Options()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1600,1000",
                     # A camera and microphone that need no person: a test pattern and a beep, allowed without a prompt.
                     "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                     "--autoplay-policy=no-user-gesture-required", *extra_arguments):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def css_for(testid, **data):
    """`[data-testid="room-card"][data-room="Red"]` for css_for("room-card", room="Red")."""
    selector = f'[data-testid="{testid}"]'
    for key, value in data.items():
        attribute = re.sub(r"([A-Z])", lambda m: "-" + m.group(1).lower(), key)
        selector += f'[data-{attribute}="{value}"]'
    return selector


def http_json(url, credentials=None):
    request = urllib.request.Request(url)
    if credentials:
        token = base64.b64encode(f"{credentials['key']}:{credentials['secret']}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def development_app(server):
    """The development app's key and secret, from the file `caucus serve` keeps in its data folder."""
    return json.loads((pathlib.Path(server.data) / "development-app.json").read_text())


def essentials(session):
    """What every viewer must agree on: status, parent control, rooms with occupants and
    assignments, and each user's role and place (a snapshot, a control-API view or a page's model)."""
    breakout = session["breakout"]
    return {
        "status": breakout["phase"]["status"],
        "parent": breakout["parent"],
        "timer": breakout.get("timer", {}).get("endsAt"),
        "rooms": [(room["name"], sorted(room["occupants"]), sorted(room["assigned"])) for room in breakout["rooms"]],
        "users": sorted((user["id"], user["name"], user["role"], user.get("location")) for user in session["users"]),
    }


class Page:
    """One person's browser on the console, with waits that fail loudly."""

    def __init__(self, who, base, extra_arguments=()):
        self.who = who
        self.base = base
        self.driver = chromium(extra_arguments)

    def quit(self):
        self.driver.quit()

    def reset(self, who):
        """Reuses this browser for someone else: a fresh tab state (no seat kept), desktop size."""
        self.who = who
        # Cleared from a page that is not the console, which would save its seat again.
        self.driver.get(self.base + "/console/dev")
        self.driver.execute_script("sessionStorage.clear(); localStorage.clear();")
        self.desktop()

    def phone(self):
        """A 390×844 phone screen (its viewport exactly, whatever the window)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})

    def desktop(self, width=1440, height=900):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def box(self, selector):
        """The element's box in the viewport, and the page's scroll: {left, right, top, bottom, scrollY}."""
        return self.driver.execute_script(
            "const r = arguments[0].getBoundingClientRect();"
            "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, scrollY: window.scrollY};",
            self.find(selector))

    def page_width(self):
        return self.driver.execute_script("return document.documentElement.scrollWidth;")

    def scroll_top(self):
        self.driver.execute_script("window.scrollTo(0, 0);")

    def body_text(self):
        return self.driver.find_element(By.TAG_NAME, "body").text

    def reload(self):
        self.driver.refresh()

    # --- Finding and waiting ---

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector):
        elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return elements[0].text if elements else None

    def visible(self, selector):
        elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
        return bool(elements) and elements[0].is_displayed()

    def wait(self, condition, what):
        try:
            return WebDriverWait(self.driver, WAIT_SECONDS, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(
                lambda _: condition())
        except TimeoutException:
            raise AssertionError(f"{self.who}: timed out waiting for {what}\n{self.report()}") from None

    def wait_gone(self, selector, what=None):
        self.wait(lambda: not self.visible(selector), what or f"{selector} to go")

    def wait_text(self, selector, expected):
        """Waits until the element's visible text contains `expected`; returns the text."""
        return self.wait(lambda: expected in (self.text(selector) or "") and self.text(selector), f"{selector} to show {expected!r}")

    def wait_visible(self, selector):
        self.wait(lambda: self.visible(selector), f"{selector} to be visible")

    def report(self):
        body = self.driver.find_element(By.TAG_NAME, "body").text
        try:
            console = "\n".join(f"{entry['level']}: {entry['message']}" for entry in self.driver.get_log("browser"))
        except Exception as error:  # the log is a help for the reader, never the failure itself
            console = f"(no browser log: {error})"
        return f"--- page text of {self.who} ({self.driver.current_url}) ---\n{body}\n--- browser console ---\n{console}"

    # --- Acting ---

    def click(self, selector):
        def attempt():
            element = self.find(selector)
            if not (element.is_enabled() and element.is_displayed()):
                return False
            # Centred, so the sticky top bar never covers what is clicked.
            self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
            element.click()
            return True
        # Found, scrolled and clicked as one step, taken again from the start if the page drew
        # the element anew meanwhile (a list redrawn on an update leaves a stale element; the
        # click never reached it).
        self.wait(attempt, f"{selector} to be clickable")

    def set_value(self, selector, text):
        """Types a long text at once (send_keys types it key by key)."""
        self.driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'));", self.find(selector), text)

    def open_details(self, summary_selector):
        """Opens a collapsed section by its summary, unless it is open."""
        summary = self.find(summary_selector)
        if not self.driver.execute_script("return arguments[0].parentElement.open;", summary):
            self.click(summary_selector)

    def send_chat(self, text):
        """Types a chat message and sends it."""
        self.type(css_for("chat-text"), text)
        self.click(css_for("chat-send"))

    def type(self, selector, text):
        def attempt():
            element = self.find(selector)
            element.clear()
            element.send_keys(text)
            return True
        # Cleared and typed as one step, taken again from the start if the page drew the field
        # anew in between (a rename form is redrawn on every update, keeping what was typed):
        # the element found first is then stale, as in `choose`.
        self.wait(attempt, f"{text!r} typed into {selector}")

    def choose(self, selector, visible_text):
        def attempt():
            picker = Select(self.find(selector))
            if not any(option.text == visible_text for option in picker.options):
                return False
            picker.select_by_visible_text(visible_text)
            return True
        # Found and chosen as one step, as `click` does, taken again from the start if the page
        # drew the list anew in between (every update redraws the plan's pickers: the element
        # found first is then stale, which failed a CI rehearsal).
        self.wait(attempt, f"{visible_text!r} chosen in {selector}")

    def drag(self, source, target):
        """HTML5 drag and drop, dispatched in the page: WebDriver's pointer actions do not start native drags."""
        self.driver.execute_script(
            """
            const [source, target] = arguments;
            const data = new DataTransfer();
            const fire = (element, type) => element.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
            fire(source, "dragstart"); fire(target, "dragover"); fire(target, "drop"); fire(source, "dragend");
            """,
            self.find(source), self.find(target))

    def screenshot(self, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        self.driver.save_screenshot(str(path))
        return path

    # --- The console's own steps ---

    def create(self, session, name, password=""):
        """Starts a session from the console at `/` (development app: one click) as its host,
        and keeps its participant link for the others (`PARTICIPANT_LINKS`)."""
        self.driver.get(self.base + "/")
        self.wait_visible(css_for("dev-banner"))
        self.wait_visible(css_for("create-form"))
        self.type(css_for("create-session-name"), session)
        self.type(css_for("create-user-name"), name)
        self.type(css_for("create-password"), password)
        self.click(css_for("create-session"))
        self.wait_joined(name, "host")
        self.wait(lambda: "invite=" in (self.find(css_for("invite-link")).get_attribute("value") or ""), "the participant link")
        PARTICIPANT_LINKS[session] = self.find(css_for("invite-link")).get_attribute("value")

    def plan_and_confirm(self, rooms, placed):
        """The host plans `rooms`, puts each of `placed` ({name: room}) in one, and confirms."""
        self.type(css_for("plan-names"), ", ".join(rooms))
        self.click(css_for("plan-add"))
        for name, target in placed.items():
            planned = css_for("plan-room", room=target)
            self.choose(f"{planned} {css_for('plan-assign-select')}", name)
            self.click(f"{planned} {css_for('plan-assign-button')}")
            self.wait_text(f"{planned} {css_for('plan-assigned')}", name)
        self.click(css_for("commit"))
        self.wait(lambda: self.find(css_for("status")).get_attribute("data-status") == "committed", "the status committed")

    def fill_join_form(self, session, name, role="participant", password=""):
        """Opens the session's participant link (made by its host's `create`) and types the name."""
        assert role == "participant", "the host starts the session with `create`"
        self.driver.get(PARTICIPANT_LINKS[session])
        self.wait_visible(css_for("join-form"))
        self.type(css_for("user-name"), name)
        self.type(css_for("password"), password)

    def join(self, session, name, role, password=""):
        """The host starts the session; a participant joins by its participant link."""
        if role == "host":
            self.create(session, name, password)
            return
        self.fill_join_form(session, name, role, password)
        self.click(css_for("join"))
        self.wait_joined(name, role)

    def wait_joined(self, name, role):
        self.wait_visible(css_for("host-view" if role == "host" else "participant-view"))
        self.wait_text(css_for("session-title"), f"{name} ({role})")

    def go_offline(self):
        """Drops the console's socket and refuses new ones until `go_online`, as a lost network would."""
        self.driver.execute_script(
            """
            window.__realWebSocket = window.WebSocket;
            window.WebSocket = function () { throw new Error("offline (test)"); };
            window.WebSocket.OPEN = 1;
            window.caucusConsole.connection.socket.close();
            """)

    def go_online(self):
        self.driver.execute_script("window.WebSocket = window.__realWebSocket;")

    def model(self):
        """The page's own model of the session, as `essentials` reads it."""
        return json.loads(self.driver.execute_script(
            """
            const model = window.caucusConsole.model;
            const users = [...model.users.values()].map((user) => ({ id: user.id, name: user.name, role: model.role(user.id), location: user.location ?? null }));
            return JSON.stringify({ breakout: model.breakout, users });
            """))

    def wait_model_agrees(self, server_view):
        """Waits until the page's model, built from the snapshot and the events it received,
        matches the server's own view of the session fetched by `server_view`."""
        self.wait(lambda: essentials(self.model()) == essentials(server_view()),
                  "the page's model to match the server's view of the session "
                  f"(page: {essentials(self.model())}, server: {essentials(server_view())})")

    def assert_no_error(self):
        if self.visible(css_for("error")):
            raise AssertionError(f"{self.who} shows an error: {self.text(css_for('error'))}\n{self.report()}")


class ConsoleTestCase(unittest.TestCase):
    """One `caucus serve` and a few browsers for a whole test class: starting them is most of
    a test's time on a small machine. Each test takes browsers in order (`page`), each reset
    to a fresh tab, and uses session names of its own."""

    @classmethod
    def setUpClass(cls):
        cls.server = CaucusServer()
        cls.browsers = []

    @classmethod
    def tearDownClass(cls):
        for browser in cls.browsers:
            browser.quit()
        cls.server.stop()

    def setUp(self):
        self.pages = []

    def page(self, who):
        index = len(self.pages)
        if index == len(self.browsers):
            self.browsers.append(Page(who, self.server.base))
        page = self.browsers[index]
        page.reset(who)
        self.pages.append(page)
        return page

    def server_view(self, session):
        """The session as the HTTP control API shows it, read with the development app's
        credentials from the server's data folder (no page ever sees them)."""
        app = development_app(self.server)
        sessions = http_json(self.server.base + "/v1/sessions", app)["sessions"]
        session_id = next(listed["id"] for listed in sessions if listed["name"] == session)
        return http_json(f"{self.server.base}/v1/sessions/{session_id}", app)

    def assert_models_agree(self, session):
        for page in self.pages:
            page.wait_model_agrees(lambda: self.server_view(session))
