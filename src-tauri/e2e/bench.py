#!/usr/bin/env python3
"""The desktop benchmarks (docs/benchmarks.md), run by scripts/bench-desktop
inside the same harness as the end-to-end test (xvfb, a scratch keychain,
tauri-driver) plus a stand-in tray host, on release builds of the key app and
of benches/bare-tray, measured in the same run (BENCH_BARE empty: the key
app alone):

- cold start to tray: process start until its tray icon registers with the
  tray host (BENCH_STARTS starts, default 5, after one uncounted warm-up);
- memory, RSS and PSS summed over every process of the app (WebKit's included,
  from /proc/*/smaps_rollup): idle in the tray after each counted start, with
  windows open (the bare app's one window; the key app's main window on its
  consent view plus the consent window a pairing opened; and the key app's
  consent window alone, opened from the tray by a request), and after the
  windows closed;
- back to idle: the last window's close until no WebKit web process is left;
- the agent sends POST /v1/requests (stamped by strace) -> the consent text
  painted in the window (p50/p99): BENCH_REQUESTS (default 30) with the
  consent view already open (it learns of a new request from its pending
  `wait_pending` call, ui/src/useChanges.ts: no poll, so no phase to spread), and
  BENCH_TRAY_REQUESTS (default 10) from the tray, where the request opens the
  consent window (the page marks the frame that first shows the text; the
  mark is read through WebDriver);
- whether the run meets the latency aims (AIMS), in the same run.

Prints one JSON object (and a table on stderr).
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
import e2e  # noqa: E402
from e2e import By, Env, descendants, free_port, read_until, session, wait_for, web_processes  # noqa: E402

KEYAPP = os.environ["BENCH_KEYAPP"]
BARE = os.environ.get("BENCH_BARE") or None
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "30"))
STARTS = int(os.environ.get("BENCH_STARTS", "5"))
TRAY_REQUESTS = int(os.environ.get("BENCH_TRAY_REQUESTS", "10"))
SETTLE = 5.0  # seconds a state is left to settle before its memory is read
# The aims for POST -> consent text visible, p99 in one run: (case, summary key, ms).
AIMS = (("view open", "view_open", 100), ("from the tray", "from_tray", 300))


def memory(pid):
    """(RSS MB, PSS MB, processes) over pid and every process under it."""
    rss = pss = 0
    procs = [pid] + [p for p, _ in descendants(pid)]
    for p in procs:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Rss:"):
                        rss += int(line.split()[1])
                    elif line.startswith("Pss:"):
                        pss += int(line.split()[1])
        except OSError:
            pass
    # Whether Mesa's software GL (llvmpipe: libLLVM, ~44 MB RSS) is loaded:
    # under xvfb GTK loads it in some runs and not in others.
    gl = False
    for p in procs:
        try:
            with open(f"/proc/{p}/maps") as f:
                gl = gl or "libLLVM" in f.read()
        except OSError:
            pass
    return round(rss / 1024, 1), round(pss / 1024, 1), len(procs), gl


class TrayHost:
    def __init__(self, scratch):
        self.items = f"{scratch}/tray-items"
        open(self.items, "w").close()
        self.proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "tray_host.py"),
                                      self.items], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "tray host: ready"

    def count(self):
        with open(self.items) as f:
            return len(f.read().split())


def cold_starts(tray, argv, runs):
    """Seconds from exec to the tray icon, `runs` times (the first is a warm-up
    of the page cache, not counted); and the memory idle in the tray, read
    SETTLE after each counted start, and once more 3 * SETTLE later after the last."""
    times, idle = [], []
    for i in range(runs + 1):
        before = tray.count()
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for("the tray icon", lambda: tray.count() > before, timeout=60, every=0.005)
        if i > 0:
            times.append(time.perf_counter() - t0)
        if i > 0:
            time.sleep(SETTLE)
            idle.append(memory(proc.pid))
            assert not web_processes(proc.pid), "idle in the tray runs no WebKit web process"
        if i == runs:  # later still: whether something (GL) loads after the first seconds
            time.sleep(3 * SETTLE)
            idle.append(memory(proc.pid))
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return times, idle


def close_and_time(driver, pid):
    """Closes every window of the app, each through its own close_window (as
    its Close button does); seconds from the last close until no WebKit web
    process is left."""
    handles = driver.window_handles
    for i, handle in enumerate(handles):
        driver.switch_to.window(handle)
        closed = time.perf_counter()
        try:
            driver.set_script_timeout(2)
            driver.execute_async_script(
                "window.__TAURI_INTERNALS__.invoke('close_window'); setTimeout(arguments[arguments.length - 1], 50)")
        except Exception:  # the page goes with its window
            pass
        if i < len(handles) - 1:
            wait_for("the window to close", lambda: handle not in driver.window_handles, timeout=30, every=0.01)
    wait_for("no WebKit web process", lambda: not web_processes(pid), timeout=60, every=0.01)
    return time.perf_counter() - closed


def consent_text_shown(driver):
    """[wall-clock ms, text, page start, DOMContentLoaded (wall-clock ms)] of
    the first frame that showed a consent text in
    any window of the app, once one has: the page marks that frame itself
    (User Timing, `TEXT_PAINTED_MARK` in ui/src/Consent.tsx, the text as the
    mark's detail), since a window the app opens runs its page before anything
    could watch it; polled through WebDriver, but the time is the page's, not
    the poll's. The text is checked against the one on screen."""
    for handle in driver.window_handles:
        driver.switch_to.window(handle)
        shown = driver.execute_script(
            "const m = performance.getEntriesByName('schcp-consent-text-painted').pop();"
            "const p = document.getElementById('consent-text');"
            "if (!m || !p || p.textContent !== m.detail) return null;"
            "const nav = performance.getEntriesByType('navigation')[0];"
            "return [performance.timeOrigin + m.startTime, m.detail, performance.timeOrigin,"
            " nav ? performance.timeOrigin + nav.domContentLoadedEventEnd : null]")
        if shown:
            return shown
    return None


# Installed in the page before each request: the wall-clock time (the same
# clock as strace's and Python's) of the first frame painted after the consent
# text appeared or changed, so the figure does not depend on how often
# WebDriver polls. Reset on each call.
WATCH_CONSENT = """
if (!window.__bench) {
  let node = null, text = null;
  window.__bench = {seen: []};
  new MutationObserver(() => {
    const p = document.getElementById('consent-text');
    const t = p ? p.textContent : null;
    if (p && t && (p !== node || t !== text)) {
      const e = {text: t, mutated: Date.now(), painted: null};
      window.__bench.seen.push(e);
      requestAnimationFrame(() => { e.painted = Date.now(); });
    }
    node = p; text = t;
  }).observe(document, {subtree: true, childList: true, characterData: true});
}
window.__bench.seen = [];
"""


def traced_agent(env, key_file, trace):
    """The example agent under strace, which stamps (wall clock, µs) the write
    that sends POST /v1/requests: the interval starts when the agent sends it,
    not when its answer comes back (the key app may show the text sooner)."""
    return subprocess.Popen(
        ["strace", "-f", "-qq", "-ttt", "-e", "trace=write,writev,sendto,sendmsg", "-s", "40", "-o", trace,
         e2e.AGENT, "--keyapp", f"http://127.0.0.1:{env.agent_port}", "--offer-file", f"{env.scratch}/offer.jws",
         "--key-file", key_file, "--discovery", e2e.DISCOVERY],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def post_sent(trace):
    """(the agent sends POST /v1/requests, it prints the answer's consent text):
    wall-clock stamps of the two writes."""
    sent = printed = None
    with open(trace) as f:
        for line in f:
            if sent is None and '"POST /v1/requests ' in line:
                sent = float(line.split()[1])
            elif printed is None and '"The key app shows the person:' in line:
                printed = float(line.split()[1])
    assert sent and printed, f"no POST /v1/requests or no answer in {trace}"
    return sent, printed


def app_pid_of(name):
    """The newest process running `name` (tauri-driver's WebKitWebDriver started it)."""
    out = subprocess.run(["pgrep", "-n", "-f", name], capture_output=True, text=True).stdout.split()
    return int(out[0])


def bare(scratch, tray):
    driver = session(BARE, ["--open"])
    try:
        wait_for("the bare window", lambda: driver.find_element(By.ID, "text"))
        pid = app_pid_of(BARE)
        time.sleep(SETTLE)
        window = memory(pid)
        back = close_and_time(driver, pid)
        time.sleep(SETTLE)
        after = memory(pid)
    finally:
        driver.quit()
    # After the window session, as the key app's are (the same order for both).
    starts, idle = cold_starts(tray, [BARE], STARTS)
    return {"cold_start_s": starts, "idle": idle, "window": window, "back_to_idle_s": [back], "after_close": after}


def keyapp(scratch, tray):
    env = Env(scratch, "en", app=KEYAPP)
    try:
        pid = json.load(open(f"{scratch}/data/keyapp.lock"))["pid"]
        # A pairing on the consent view: the window as a person sees it.
        agent = env.agent(f"{scratch}/agent.key")
        line, _ = read_until(agent, "Pairing ")
        pairing = line.split()[1].rstrip(":")
        env.shown_id(pairing)
        time.sleep(SETTLE)
        window = memory(pid)
        # The latency: the agent sends POST /v1/requests -> its consent text on
        # screen. The paired agent goes on to a first request: approved here,
        # so that each measured request starts from nothing pending.
        subprocess.run([e2e.CLI, "--config", env.config, "approve", pairing], input="y\n", text=True,
                       capture_output=True, check=True)
        first = read_until(agent, "  schcp-keyapp approve rq_")[0].split()[-1]
        subprocess.run([e2e.CLI, "--config", env.config, "approve", first], input="y\n", text=True,
                       capture_output=True, check=True)
        agent.wait(30)
        latencies, after_response = [], []
        for i in range(REQUESTS):
            env.route("#/requests")
            wait_for("Requests", lambda: env.driver.find_element(By.ID, "h-requests"))
            env.route("#/consent")
            wait_for("the empty consent view", lambda: env.js(
                "return !document.getElementById('consent-text') && location.hash === '#/consent'"))
            env.js(WATCH_CONSENT)
            env.new_offer()
            # The view waits on `wait_pending` (no poll); this lets its wait
            # begin again after the route change, as a view open a while has.
            time.sleep(0.5)
            trace = f"{scratch}/agent-{i}.strace"
            agent = traced_agent(env, f"{scratch}/agent.key", trace)
            read_until(agent, "The key app shows the person:")
            request = read_until(agent, "  schcp-keyapp approve rq_")[0].split()[-1]
            text = subprocess.run([e2e.CLI, "--config", env.config, "show", request], capture_output=True,
                                  text=True, check=True).stdout[:-1]
            shown = wait_for("the consent text", lambda: env.js(
                "const e = window.__bench.seen.find(e => e.text === arguments[0] && e.painted);"
                "return e ? e.painted : null", text), timeout=30, every=0.05)
            posted, responded = post_sent(trace)
            os.remove(trace)
            latencies.append(shown / 1000 - posted)
            after_response.append(shown / 1000 - responded)
            subprocess.run([e2e.CLI, "--config", env.config, "approve", request], input="y\n", text=True,
                           capture_output=True, check=True)
            agent.wait(30)
        print(f"bench: POST -> text, view open (s): {latencies}; response -> text {after_response}", file=sys.stderr)
        windows_open = len(env.driver.window_handles)
        back = [close_and_time(env.driver, pid)]
        time.sleep(SETTLE)
        after = memory(pid)
        # From the tray: no window open, the agent posts, the app opens the
        # consent window and it shows the text (what a person meets).
        from_tray, from_tray_response, tray_phases = [], [], []
        for i in range(TRAY_REQUESTS):
            assert not env.driver.window_handles and not web_processes(pid), "idle before the request"
            env.new_offer()
            trace = f"{scratch}/agent-tray-{i}.strace"
            agent = traced_agent(env, f"{scratch}/agent.key", trace)
            shown, shown_text, page_start, page_loaded = wait_for(
                "the consent window's text", lambda: consent_text_shown(env.driver), timeout=30, every=0.002)
            read_until(agent, "The key app shows the person:")
            request = read_until(agent, "  schcp-keyapp approve rq_")[0].split()[-1]
            text = subprocess.run([e2e.CLI, "--config", env.config, "show", request], capture_output=True,
                                  text=True, check=True).stdout[:-1]
            assert shown_text == text, f"the window shows another text: {shown_text!r} != {text!r}"
            posted, responded = post_sent(trace)
            os.remove(trace)
            from_tray.append(shown / 1000 - posted)
            from_tray_response.append(shown / 1000 - responded)
            # Where the time went: the window and its web process until the
            # page starts, the page until DOMContentLoaded, then the text.
            if page_loaded:
                tray_phases.append((page_start / 1000 - posted, (page_loaded - page_start) / 1000,
                                    (shown - page_loaded) / 1000))
            if i == TRAY_REQUESTS - 1:
                time.sleep(SETTLE)
                consent_window = memory(pid)
            subprocess.run([e2e.CLI, "--config", env.config, "approve", request], input="y\n", text=True,
                           capture_output=True, check=True)
            agent.wait(30)
            back.append(close_and_time(env.driver, pid))
        print(f"bench: POST -> text, from the tray (s): {from_tray}; response -> text {from_tray_response}",
              file=sys.stderr)
    finally:
        env.close()
    scratch2 = tempfile.mkdtemp(dir=scratch)
    config = f"{scratch2}/keyapp.toml"
    with open(config, "w") as f:
        f.write(f'data_dir = "{scratch2}/data"\nlocale = "en"\n[agent_api]\nlisten = "127.0.0.1:{free_port()}"\n'
                f'[status_api]\nlisten = "127.0.0.1:{free_port()}"\n')
    # The first run asks in a window before any key exists (new key or
    # restore): answered once here, so the starts timed are a returning person's.
    first = session(KEYAPP, ["--config", config, "--open"])
    try:
        e2e.new_key(first)
        wait_for("the first key", lambda: os.path.exists(f"{scratch2}/data/run/agent-api.json"))
        first_pid = json.load(open(f"{scratch2}/data/keyapp.lock"))["pid"]
    finally:
        first.quit()

    # With a tray to wait in, the app may outlive its window: then stopped here
    # as the tray's Quit stops it (SIGTERM), so each timed start is a fresh process.
    def running():
        try:
            os.kill(first_pid, 0)
            return True
        except ProcessLookupError:
            return False
    try:
        wait_for("the first run to stop", lambda: not running(), timeout=5)
    except AssertionError:
        os.kill(first_pid, signal.SIGTERM)
        wait_for("the first run to stop", lambda: not running())
    starts, idle = cold_starts(tray, [KEYAPP, "--config", config], STARTS)
    return {"cold_start_s": starts, "idle": idle, "window": window, "windows_open": windows_open,
            "consent_window": consent_window, "back_to_idle_s": back, "after_close": after,
            "request_to_text_s": latencies, "response_to_text_s": after_response,
            "from_tray_request_to_text_s": from_tray, "from_tray_response_to_text_s": from_tray_response,
            "from_tray_phases_s": tray_phases}


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main():
    wait_for("tauri-driver", lambda: e2e.urllib.request.urlopen(f"{e2e.DRIVER}/status", timeout=2).status == 200)
    with tempfile.TemporaryDirectory() as scratch:
        tray = TrayHost(scratch)
        try:
            results = {"bare": bare(f"{scratch}", tray) if BARE else None}
            os.makedirs(f"{scratch}/k")
            results["keyapp"] = keyapp(f"{scratch}/k", tray)
        finally:
            tray.proc.kill()
    k = results["keyapp"]
    apps = ("keyapp", "bare") if BARE else ("keyapp",)

    def ms(values):
        return {"p50": round(pct(values, 50) * 1000), "p99": round(pct(values, 99) * 1000),
                "max": round(max(values) * 1000), "n": len(values)}

    results["summary"] = {
        "request_to_text_ms": {"view_open": ms(k["request_to_text_s"]),
                               "from_tray": ms(k["from_tray_request_to_text_s"])},
        "response_to_text_ms": {"view_open": ms(k["response_to_text_s"]),
                                "from_tray": ms(k["from_tray_response_to_text_s"])},
        "cold_start_ms": {a: round(statistics.median(results[a]["cold_start_s"]) * 1000) for a in apps},
        "back_to_idle_ms": {a: ms(results[a]["back_to_idle_s"]) for a in apps},
        # From the tray, p50 of each phase: POST -> the page starts (the window
        # and its web process), -> DOMContentLoaded (the page), -> the text painted.
        "from_tray_phases_p50_ms": {
            name: round(pct([p[i] for p in k["from_tray_phases_s"]], 50) * 1000)
            for i, name in enumerate(("window_and_web_process", "page", "text"))
        } if k["from_tray_phases_s"] else None,
    }
    # The host, agent and CLI around the app (BENCH_HELPERS): not what is measured.
    results["summary"]["helpers_profile"] = e2e.PROFILE
    request_ms = results["summary"]["request_to_text_ms"]
    results["summary"]["aims"] = [
        {"case": case, "figure": "p99", "aim_ms": aim, "measured_ms": request_ms[key]["p99"],
         "met": request_ms[key]["p99"] <= aim} for case, key, aim in AIMS]
    results["summary"]["idle_median_mb"] = {
        a: {"rss": statistics.median(m[0] for m in results[a]["idle"]),
            "pss": statistics.median(m[1] for m in results[a]["idle"])} for a in apps}
    print(json.dumps(results, indent=1))
    print(json.dumps(results["summary"], indent=1), file=sys.stderr)
    print("| case | aim | p99 in this run | met |\n|---|---|---|---|", file=sys.stderr)
    for a in results["summary"]["aims"]:
        print(f"| {a['case']} | p99 ≤ {a['aim_ms']} ms | {a['measured_ms']} ms | {'met' if a['met'] else 'not met'} |",
              file=sys.stderr)
    for a in apps:
        r = results[a]
        print(f"{a}: idle RSS/PSS {[m[:2] + m[3:] for m in r['idle']]} MB; window {r['window'][:2]} MB ({r['window'][2]} processes); "
              f"after close {r['after_close'][:2]} MB", file=sys.stderr)
    print(f"keyapp: consent window alone (from the tray) {k['consent_window'][:2]} MB "
          f"({k['consent_window'][2]} processes); {k['windows_open']} windows open for 'window'", file=sys.stderr)

if __name__ == "__main__":
    main()
