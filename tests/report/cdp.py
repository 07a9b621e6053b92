"""A small Chrome DevTools Protocol client over --remote-debugging-pipe (no websocket, no extra
package): starts Debian's headless chromium, opens a page, and collects console messages and
uncaught exceptions so that tests can require a page without errors."""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width=1400, height=1300):
        exe = chromium_path()
        if exe is None:
            raise RuntimeError("chromium not found (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="msprobe-chromium-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire_pipes():  # the protocol pipe is fd 3 (commands) and fd 4 (replies)
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)  # may themselves be 3 or 4
            os.dup2(r, 3)  # dup2 makes them inheritable
            os.dup2(w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            close_fds=False, preexec_fn=wire_pipes)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._next_id = 0
        self.events = []
        self.session = None
        self.width, self.height = width, height

    # -- protocol -----------------------------------------------------------------------------
    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the protocol pipe")
                self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    # -- page ---------------------------------------------------------------------------------
    def open(self, url, timeout=60):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                   "mobile": False})
        self.call("Page.navigate", {"url": url})
        self.wait_for("window.msprobeReport && window.msprobeReport.ready", timeout)

    def eval(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.eval(f"!!({expression})"):
                return
            time.sleep(0.05)
        raise TimeoutError(f"waited {timeout}s for {expression}")

    def click(self, selector):
        box = self.eval(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
            if (!el) return null; el.scrollIntoView({{block: 'center'}});
            const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        if box is None:
            raise LookupError(f"no element {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                                   "button": "left", "clickCount": 1})

    def mouse(self, kind, x, y, buttons=0):
        left = buttons or kind != "mouseMoved"  # press and release are of the left button
        self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y,
                                               "button": "left" if left else "none", "buttons": buttons,
                                               "clickCount": 1 if kind != "mouseMoved" else 0})

    def box(self, selector):
        return self.eval(f"""(() => {{ const el = document.querySelector({json.dumps(selector)});
            el.scrollIntoView({{block: 'center'}}); const r = el.getBoundingClientRect();
            return [r.left, r.top, r.width, r.height]; }})()""")

    def type_text(self, selector, text):
        self.click(selector)
        self.call("Input.insertText", {"text": text})

    def press_enter(self):
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": "Enter", "code": "Enter",
                                                 "windowsVirtualKeyCode": 13})

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def keep_screenshot(self, folder, name):
        """A screenshot into folder/name, copied into $MSPROBE_REPORT_SCREENSHOTS too when that is
        set (to look at the pages a test run saw)."""
        self.screenshot(os.path.join(str(folder), name))
        target = os.environ.get("MSPROBE_REPORT_SCREENSHOTS")
        if target:
            os.makedirs(target, exist_ok=True)
            shutil.copy(os.path.join(str(folder), name), os.path.join(target, name))

    def problems(self):
        """Console errors and warnings, uncaught exceptions, and failed loads seen so far."""
        self.call("Runtime.evaluate", {"expression": "1"})  # drain pending events
        out = []
        for ev in self.events:
            m, p = ev["method"], ev.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:500])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append("console." + p["type"] + ": " + json.dumps(p.get("args"))[:500])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                out.append("log: " + p["entry"].get("text", "")[:500])
        return out

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
