"""Roles come from the invite, not from arrival order or a choice on the page (issue 24):
a session's creation gives a host link and a participant link, each an invite code the server
exchanges for a token of that role only; the first arrival with a participant link waits for
the host instead of hosting; a participant link cannot be made into a host or manager token;
no page, storage or response the page fetches holds the app's secret; and the same browser
opening its link again takes back its seat instead of leaving a ghost."""

import json
import unittest
import urllib.error
import urllib.parse
import urllib.request

import jwt

from console_support import ConsoleTestCase, css_for, development_app, http_json


def post(base, path, body):
    """POST JSON; returns (status, answer)."""
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def link(base, session, invite):
    return f"{base}/console/?{urllib.parse.urlencode({'session': session, 'invite': invite})}"


class IdentityTests(ConsoleTestCase):
    def test_the_first_arrival_with_a_participant_link_waits_and_is_not_host(self):
        status, links = post(self.server.base, "/console/dev/session", {"session": "Early"})
        self.assertEqual(status, 200, links)
        bo, host = self.page("participant Bo"), self.page("host Ann")
        # Bo opens his link before the teacher: he is told to wait, and no session starts.
        bo.driver.get(link(self.server.base, "Early", links["participantInvite"]))
        bo.type(css_for("user-name"), "Bo")
        bo.click(css_for("join"))
        bo.wait_text(css_for("join-note"), "has not started yet")
        app = development_app(self.server)
        self.assertEqual([s for s in http_json(self.server.base + "/v1/sessions", app)["sessions"] if s["name"] == "Early"], [])
        # The teacher opens the host link and hosts; Bo joins by himself, as a participant.
        host.driver.get(link(self.server.base, "Early", links["hostInvite"]))
        host.type(css_for("user-name"), "Ann")
        host.click(css_for("join"))
        host.wait_joined("Ann", "host")
        bo.wait_joined("Bo", "participant")
        roles = {user["name"]: user["role"] for user in self.server_view("Early")["users"]}
        self.assertEqual(roles, {"Ann": "host", "Bo": "participant"})

    def test_a_participant_link_cannot_become_host_or_manager(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Roles", "Ann", "host")
        participant_link = host.find(css_for("invite-link")).get_attribute("value")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(participant_link).query)
        invite = query["invite"][0]

        # The code gives a participant token and nothing else, whatever else is asked.
        status, answer = post(self.server.base, "/console/dev/token", {"session": "Roles", "invite": invite, "role": "host"})
        self.assertEqual((status, answer["role"]), (200, "participant"))
        self.assertEqual(jwt.decode(answer["token"], options={"verify_signature": False})["role_type"], 0)
        # Without a code there is no token; a code is for its own session only; a forged code is refused.
        status, answer = post(self.server.base, "/console/dev/token", {"session": "Roles", "role": "host"})
        self.assertEqual((status, answer["error"]["code"]), (400, 1004))
        status, answer = post(self.server.base, "/console/dev/token", {"session": "Other", "invite": invite})
        self.assertEqual((status, answer["error"]["code"]), (400, 1020))
        header, payload, _ = invite.split(".")
        claims = json.loads(jwt.utils.base64url_decode(payload))
        claims["role_type"] = 1
        forged = f"{header}.{jwt.utils.base64url_encode(json.dumps(claims).encode()).decode()}.{invite.split('.')[2]}"
        status, answer = post(self.server.base, "/console/dev/token", {"session": "Roles", "invite": forged})
        self.assertEqual((status, answer["error"]["code"]), (400, 1020))
        # A join token is not an invite code: the app's tokens are signed with another key.
        app = development_app(self.server)
        status, answer = post(self.server.base, "/console/dev/token", {"session": "Roles", "invite": jwt.encode(claims, app["secret"], algorithm="HS256")})
        self.assertEqual((status, answer["error"]["code"]), (400, 1020))
        # Nobody gets a new host link for a running session.
        status, answer = post(self.server.base, "/console/dev/session", {"session": "roles"})
        self.assertEqual((status, answer["error"]["code"]), (409, 1021))
        # The credentials are not served any more.
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(self.server.base + "/console/dev/app", timeout=10)
        self.assertEqual(refused.exception.code, 404)

        # On the page: no role to choose, and the participant gets the participant's view.
        bo.driver.get(participant_link)
        bo.wait_visible(css_for("join-form"))
        self.assertEqual(bo.driver.find_elements("css selector", 'input[name="role"]'), [], "the page offers a role")
        bo.join("Roles", "Bo", "participant")
        self.assertFalse(bo.visible(css_for("host-view")))
        self.assertEqual({user["name"]: user["role"] for user in self.server_view("Roles")["users"]}, {"Ann": "host", "Bo": "participant"})

    def test_no_page_storage_or_response_holds_the_app_secret(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        secret = development_app(self.server)["secret"]
        host.join("Secrets", "Ann", "host")
        bo.join("Secrets", "Bo", "participant")
        for page in (host, bo):
            seen = page.driver.execute_script(
                """
                const storage = (s) => Object.keys(s).map((key) => key + "=" + s.getItem(key)).join("\\n");
                return [document.documentElement.outerHTML, storage(sessionStorage), storage(localStorage),
                        JSON.stringify(performance.getEntriesByType("resource").map((entry) => entry.name))].join("\\n");
                """)
            self.assertNotIn(secret, seen, f"{page.who}'s page holds the app secret")
            # Every file the page fetched, fetched again: none holds it either (the endpoints it
            # POSTed to are checked below).
            posted = ("/console/dev/", "/console/class", "/console/token", "/console/person", "/console/host-link")
            for url in page.driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name);"):
                if url.startswith(self.server.base) and not any(path in url for path in posted):
                    with urllib.request.urlopen(url, timeout=10) as response:
                        self.assertNotIn(secret, response.read().decode(errors="replace"), url)
        # The development helpers' answers (the page's POSTs) hold none either.
        for path, body in (("/console/dev/session", {"session": "Secrets 2"}), ("/console/class", {"session": "Secrets 3"}), ("/console/dev", None)):
            status, answer = post(self.server.base, path, body) if body else (200, http_json(self.server.base + path))
            self.assertNotIn(secret, json.dumps(answer))
            if body:
                session = body["session"]
                status, token = post(self.server.base, "/console/token", {"session": session, "invite": answer["hostInvite"]})
                self.assertEqual(status, 200, token)
                self.assertNotIn(secret, json.dumps(token))
                for endpoint, asked in (("/console/person", {"name": "Dee"}), ("/console/host-link", {})):
                    status, made = post(self.server.base, endpoint, {"session": session, "invite": answer["hostInvite"], **asked})
                    self.assertEqual(status, 200, made)
                    self.assertNotIn(secret, json.dumps(made))

    def test_closing_and_reopening_a_link_keeps_one_seat(self):
        host, bo = self.page("host Ann"), self.page("participant Bo")
        host.join("Reopen", "Ann", "host")
        bo.join("Reopen", "Bo", "participant")
        participant_link = bo.driver.current_url
        me = bo.model()
        bo_id = next(user["id"] for user in me["users"] if user["name"] == "Bo")
        # Bo closes his tab (its socket drops; his seat is held) and opens the link again.
        first = bo.driver.current_window_handle
        bo.driver.switch_to.new_window("tab")
        second = bo.driver.current_window_handle
        bo.driver.switch_to.window(first)
        bo.driver.close()
        bo.driver.switch_to.window(second)
        bo.driver.get(participant_link)
        bo.wait_joined("Bo", "participant")
        again = next(user["id"] for user in bo.model()["users"] if user["name"] == "Bo")
        self.assertEqual(again, bo_id, "reopening the link made a new person")
        host.wait(lambda: "reconnecting" not in host.text(css_for("user-row", userName="Bo")), "Bo to be back")
        users = self.server_view("Reopen")["users"]
        self.assertEqual(sorted(user["name"] for user in users), ["Ann", "Bo"], "a ghost seat")
        self.assertTrue(all(user["presence"]["connected"] for user in users))

    def test_a_personal_link_joins_its_person_in_one_browser_at_a_time(self):
        host, bo, other = self.page("host Ann"), self.page("participant Bo"), self.page("someone else with Bo's link")
        secret = development_app(self.server)["secret"]
        host.join("Personal", "Ann", "host")
        # The host makes Bo's own link.
        host.type(css_for("personal-name"), "Bo")
        host.click(css_for("personal-make"))
        host.wait_visible(css_for("personal-link", userName="Bo"))
        host.screenshot("host-personal-link.png")
        bo_link = host.find(f"{css_for('personal-link', userName='Bo')} {css_for('personal-link-url')}").get_attribute("value")
        query = urllib.parse.parse_qs(urllib.parse.urlparse(bo_link).query)
        self.assertEqual(query["name"], ["Bo"])
        code = query["invite"][0]
        self.assertNotIn(secret, bo_link)

        # Bo's page asks for no name: the link's is his; he joins as a participant under it.
        bo.driver.get(bo_link)
        bo.wait_visible(css_for("join-form"))
        bo.wait_text(css_for("join-heading"), "as Bo")
        self.assertFalse(bo.visible(css_for("user-name")), "a personal link asks for a name")
        bo.click(css_for("join"))
        bo.wait_joined("Bo", "participant")
        users = {user["name"]: user for user in self.server_view("Personal")["users"]}
        self.assertEqual(sorted(users), ["Ann", "Bo"])
        self.assertEqual(users["Bo"]["role"], "participant")
        self.assertTrue(users["Bo"]["identity"].startswith("console-person-"), users["Bo"])

        # The same link in another browser: refused in words (2017), and no second Bo.
        other.driver.get(bo_link)
        other.wait_visible(css_for("join-form"))
        other.click(css_for("join"))
        other.wait(lambda: other.find(css_for("inline-error")).get_attribute("data-code") == "2017", "the refusal of a link in use")
        self.assertIn("another browser", other.text(css_for("inline-error")))
        self.assertFalse(other.visible(css_for("participant-view")))
        self.assertEqual(sorted(user["name"] for user in self.server_view("Personal")["users"]), ["Ann", "Bo"], "a second seat")

        # Bo closes his tab and opens his link again: the same seat.
        bo_id = users["Bo"]["id"]
        first = bo.driver.current_window_handle
        bo.driver.switch_to.new_window("tab")
        second = bo.driver.current_window_handle
        bo.driver.switch_to.window(first)
        bo.driver.close()
        bo.driver.switch_to.window(second)
        bo.driver.get(bo_link)
        bo.wait_joined("Bo", "participant")
        self.assertEqual(next(user["id"] for user in bo.model()["users"] if user["name"] == "Bo"), bo_id, "reopening made a new person")
        self.assertEqual(sorted(user["name"] for user in self.server_view("Personal")["users"]), ["Ann", "Bo"], "a ghost seat")

        # The code is Bo's only: another name, no name, or asked as a session-wide code, it is refused.
        for body in ({"session": "Personal", "invite": code, "name": "Eve", "browser": "x"},
                     {"session": "Personal", "invite": code},
                     {"session": "Other", "invite": code, "name": "Bo", "browser": "x"}):
            status, answer = post(self.server.base, "/console/dev/token", body)
            self.assertEqual((status, answer["error"]["code"]), (400, 1020), body)
        # A participant's code makes no personal links; the host's does, never with an empty name.
        participant_code = urllib.parse.parse_qs(urllib.parse.urlparse(host.find(css_for("invite-link")).get_attribute("value")).query)["invite"][0]
        status, answer = post(self.server.base, "/console/dev/person", {"session": "Personal", "invite": participant_code, "name": "Eve"})
        self.assertEqual((status, answer["error"]["code"]), (400, 2018))
        status, answer = post(self.server.base, "/console/dev/person", {"session": "Personal", "invite": code, "name": "Eve"})
        self.assertEqual((status, answer["error"]["code"]), (400, 2018))
        host_code = urllib.parse.parse_qs(urllib.parse.urlparse(host.driver.current_url).query)["invite"][0]
        status, answer = post(self.server.base, "/console/dev/person", {"session": "Personal", "invite": host_code, "name": "  "})
        self.assertEqual((status, answer["error"]["code"]), (400, 2003))

        # Two browsers exchanging a fresh personal code before either has joined: the first gets
        # a participant token (and asking again from it still works), the second none.
        status, dee = post(self.server.base, "/console/dev/person", {"session": "Personal", "invite": host_code, "name": "Dee"})
        self.assertEqual(status, 200, dee)
        self.assertNotIn(secret, json.dumps(dee))
        asked = {"session": "Personal", "invite": dee["invite"], "name": "Dee", "role": "host"}
        status, first = post(self.server.base, "/console/dev/token", {**asked, "browser": "one"})
        self.assertEqual((status, first["role"], first["name"]), (200, "participant", "Dee"))
        claims = jwt.decode(first["token"], options={"verify_signature": False})
        self.assertEqual(claims["role_type"], 0)
        self.assertTrue(claims["user_identity"].startswith("console-person-"))
        self.assertNotIn(secret, json.dumps(first))
        status, again = post(self.server.base, "/console/dev/token", {**asked, "browser": "one"})
        self.assertEqual(status, 200, again)
        for browser in ({"browser": "two"}, {}):
            status, answer = post(self.server.base, "/console/dev/token", {**asked, **browser})
            self.assertEqual((status, answer["error"]["code"]), (409, 2017), browser)


if __name__ == "__main__":
    unittest.main()
