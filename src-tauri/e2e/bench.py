#!/usr/bin/env python3
"""The desktop benchmarks (docs/benchmarks.md), run by scripts/bench-desktop
inside the same harness as the end-to-end test (xvfb, a scratch keychain,
tauri-driver) plus a stand-in tray host, on release builds of the key app and
of benches/bare-tray, measured in the same run:

- cold start to tray: process start until its tray icon registers with the tray host;
- memory, RSS and PSS summed over every process of the app (WebKit's included,
  from /proc/*/smaps_rollup): idle in the tray, with a window open (the key
  app's on its consent view, showing a pairing), and after that window closed;
- back to idle: the window's close until no WebKit web process is left;
- agent POST /v1/requests -> the consent text visible in the window (p50/p99),
  through WebDriver, over BENCH_REQUESTS requests (default 30).

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
BARE = os.environ["BENCH_BARE"]
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "30"))
STARTS = int(os.environ.get("BENCH_STARTS", "5"))
SETTLE = 5.0  # seconds a state is left to settle before its memory is read


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
    return round(rss / 1024, 1), round(pss / 1024, 1), len(procs)


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
    of the page cache, not counted); and the memory idle in the tray."""
    times, idle = [], None
    for i in range(runs + 1):
        before = tray.count()
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for("the tray icon", lambda: tray.count() > before, timeout=60, every=0.005)
        if i > 0:
            times.append(time.perf_counter() - t0)
        if i == runs:
            time.sleep(SETTLE)
            idle = memory(proc.pid)
            assert not web_processes(proc.pid), "idle in the tray runs no WebKit web process"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return times, idle


def close_and_time(driver, pid):
    closed = time.perf_counter()
    try:
        driver.set_script_timeout(2)
        driver.execute_async_script(
            "window.__TAURI_INTERNALS__.invoke('close_window'); setTimeout(arguments[arguments.length - 1], 50)")
    except Exception:  # the page goes with its window
        pass
    wait_for("no WebKit web process", lambda: not web_processes(pid), timeout=60, every=0.01)
    return time.perf_counter() - closed


def app_pid_of(name):
    """The newest process running `name` (tauri-driver's WebKitWebDriver started it)."""
    out = subprocess.run(["pgrep", "-n", "-f", name], capture_output=True, text=True).stdout.split()
    return int(out[0])


def bare(scratch, tray):
    starts, idle = cold_starts(tray, [BARE], STARTS)
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
    return {"cold_start_s": starts, "idle": idle, "window": window, "back_to_idle_s": back, "after_close": after}


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
        # The latency: POST /v1/requests returned -> its consent text on screen.
        subprocess.run([e2e.CLI, "--config", env.config, "approve", pairing], input="y\n", text=True,
                       capture_output=True, check=True)
        read_until(agent, "  schcp-keyapp approve rq_")
        agent.kill()
        latencies = []
        for i in range(REQUESTS):
            env.route("#/requests")
            wait_for("Requests", lambda: env.driver.find_element(By.ID, "h-requests"))
            env.route("#/consent")
            wait_for("the empty consent view", lambda: env.js(
                "return !document.getElementById('consent-text') && location.hash === '#/consent'"))
            env.new_offer()
            agent = env.agent(f"{scratch}/agent.key")
            line, _ = read_until(agent, "The key app shows the person:")
            posted = time.time()
            request = read_until(agent, "  schcp-keyapp approve rq_")[0].split()[-1]
            text = subprocess.run([e2e.CLI, "--config", env.config, "show", request], capture_output=True,
                                  text=True, check=True).stdout[:-1]
            shown_at = wait_for("the consent text", lambda: env.js(
                "const p = document.getElementById('consent-text');"
                "return p && p.textContent === arguments[0] ? Date.now() : null", text), timeout=30, every=0.005)
            latencies.append(shown_at / 1000 - posted)
            subprocess.run([e2e.CLI, "--config", env.config, "approve", request], input="y\n", text=True,
                           capture_output=True, check=True)
            agent.wait(30)
        env.route("#/consent")
        back = close_and_time(env.driver, pid)
        time.sleep(SETTLE)
        after = memory(pid)
    finally:
        env.close()
    scratch2 = tempfile.mkdtemp(dir=scratch)
    config = f"{scratch2}/keyapp.toml"
    with open(config, "w") as f:
        f.write(f'data_dir = "{scratch2}/data"\nlocale = "en"\n[agent_api]\nlisten = "127.0.0.1:{free_port()}"\n'
                f'[status_api]\nlisten = "127.0.0.1:{free_port()}"\n')
    starts, idle = cold_starts(tray, [KEYAPP, "--config", config], STARTS)
    return {"cold_start_s": starts, "idle": idle, "window": window, "back_to_idle_s": back, "after_close": after,
            "request_to_text_s": latencies}


def pct(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main():
    wait_for("tauri-driver", lambda: e2e.urllib.request.urlopen(f"{e2e.DRIVER}/status", timeout=2).status == 200)
    with tempfile.TemporaryDirectory() as scratch:
        tray = TrayHost(scratch)
        try:
            results = {"bare": bare(f"{scratch}", tray)}
            os.makedirs(f"{scratch}/k")
            results["keyapp"] = keyapp(f"{scratch}/k", tray)
        finally:
            tray.proc.kill()
    lat = results["keyapp"]["request_to_text_s"]
    results["summary"] = {
        "request_to_text_ms": {"p50": round(pct(lat, 50) * 1000), "p99": round(pct(lat, 99) * 1000), "n": len(lat)},
        "cold_start_ms": {k: round(statistics.median(results[k]["cold_start_s"]) * 1000) for k in ("keyapp", "bare")},
        "back_to_idle_ms": {k: round(results[k]["back_to_idle_s"] * 1000) for k in ("keyapp", "bare")},
    }
    print(json.dumps(results, indent=1))
    for k in ("keyapp", "bare"):
        r = results[k]
        print(f"{k}: cold start {results['summary']['cold_start_ms'][k]} ms; idle RSS/PSS {r['idle'][:2]} MB; "
              f"window {r['window'][:2]} MB ({r['window'][2]} processes); back to idle "
              f"{results['summary']['back_to_idle_ms'][k]} ms, then {r['after_close'][:2]} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
