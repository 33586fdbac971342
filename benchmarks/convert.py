#!/usr/bin/env python3
"""End-to-end conversion benchmark: citekit against pandoc, bibutils, citation-js and the bare
bibtexparser parse, on real corpus data (see benchdata.py), each tool run as a child process so
startup and I/O count. Prints medians, peak memory, entries/s and citekit/peer ratios.

Run `python benchmarks/convert.py --help`; benchmarks/README.md has the peer install commands.
Stdlib only, never imports citekit: every tool, citekit included, is timed from the outside.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import benchdata

HERE = Path(__file__).resolve().parent
FORMATS = ("csl-json", "ris", "bibtex")
MiB = 1024 * 1024

# The targets for citekit bib -> CSL-JSON on the 20k file.
TARGET_VS_CITATION_JS = 1.0
TARGET_VS_PANDOC = 0.2
TARGET_PEAK_MIB = 300


# --------------------------------------------------------------------------------------------
# Running one child process (or pipeline) and measuring it
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Sample:
    seconds: float  # wall clock
    cpu: float  # user + system seconds of every process of the run (less sensitive to load)
    peak_kib: int  # max(ru_maxrss of each process, sampled RSS sum of the whole process tree)
    ok: bool
    note: str = ""


# GNU time reports each command's own ru_maxrss. Without it, os.wait4's figure is used, but that
# one starts from the harness's own size: the child's high-water mark includes the (v)forked
# parent's pages before exec, so a 10 MiB tool would read as 50 MiB.
GNU_TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.extend(int(x) for x in f.read().split())
    except (OSError, ValueError):
        pass
    return kids


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class TreeSampler(threading.Thread):
    """Sums the RSS of the measured processes and all their descendants every `interval` s:
    ru_maxrss only gives the largest single process, which under-counts a tool that splits its
    work across worker processes. `skip_roots`: the roots are GNU time wrappers, not counted."""

    def __init__(self, roots: list[int], *, skip_roots: bool, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.roots, self.skip_roots, self.interval, self.peak_kib = roots, skip_roots, interval, 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(self.interval):
            total, seen = 0, set()
            stack = [(pid, True) for pid in self.roots]
            while stack:
                pid, is_root = stack.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                if not (is_root and self.skip_roots):
                    total += _rss_kib(pid)
                stack.extend((kid, False) for kid in _children(pid))
            self.peak_kib = max(self.peak_kib, total)


def run_measured(
    stages: list[list[str]], out_path: Path, *, env: dict[str, str], timeout: float,
    ok_codes: tuple[int, ...] = (0,), require_output: Path | None = None,
) -> Sample:
    """Run `stages` as a pipeline (stdout of one into the next, the last into `out_path`)."""
    err_path = out_path.with_name(out_path.name + ".stderr")
    rss_files = [out_path.with_name(f"{out_path.name}.rss{i}") for i in range(len(stages))]
    procs: list[subprocess.Popen[bytes]] = []
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        previous = None
        for i, argv in enumerate(stages):
            last = i == len(stages) - 1
            if GNU_TIME:
                argv = [GNU_TIME, "-q", "-f", "%M %U %S", "-o", str(rss_files[i]), *argv]
            proc = subprocess.Popen(
                argv, stdin=previous.stdout if previous else subprocess.DEVNULL,
                stdout=out if last else subprocess.PIPE, stderr=err, env=env,
                process_group=procs[0].pid if procs else 0,  # one group: one kill stops all
            )
            if previous is not None and previous.stdout is not None:
                previous.stdout.close()  # so the writer gets SIGPIPE if the reader dies
            procs.append(proc)
            previous = proc
        sampler = TreeSampler([p.pid for p in procs], skip_roots=GNU_TIME is not None)
        sampler.start()
        timed_out = threading.Event()

        def kill_all() -> None:
            timed_out.set()
            try:
                os.killpg(procs[0].pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill_all)
        timer.start()
        codes, maxrss, cpu = [], 0, 0.0
        for proc in procs:
            # wait4, not Popen.wait: it hands back the child's own rusage (ru_maxrss in KiB)
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            codes.append(proc.returncode)
            maxrss = max(maxrss, usage.ru_maxrss)
            cpu += usage.ru_utime + usage.ru_stime
        elapsed = time.perf_counter() - start
        timer.cancel()
        sampler.done.set()
        sampler.join()
    if GNU_TIME:
        measured = [_gnu_time(f) for f in rss_files]
        maxrss = max(kib for kib, _ in measured)
    note = ""
    ok = all(c == 0 for c in codes[:-1]) and codes[-1] in ok_codes and not timed_out.is_set()
    if timed_out.is_set():
        note = f"killed after {timeout:.0f} s"
    elif not ok:
        note = f"exit {codes}: {_last_line(err_path)}"
    elif require_output and not _non_empty(require_output):
        # exit 1 is allowed for citekit (records rejected); a crash also exits 1, with no file
        ok, note = False, f"exit {codes}, no output: {_last_line(err_path)}"
    return Sample(elapsed, cpu, max(maxrss, sampler.peak_kib), ok, note)


def _gnu_time(path: Path) -> tuple[int, float]:
    """(max RSS KiB, user+sys s) from GNU time's `%M %U %S` line (the last line of the file)."""
    try:
        lines = path.read_text().split("\n")
        path.unlink()
        kib, user, system = [ln for ln in lines if ln.strip()][-1].split()
        return int(kib), float(user) + float(system)
    except (OSError, ValueError, IndexError):
        return 0, 0.0


def _non_empty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _last_line(path: Path) -> str:
    try:
        lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return lines[-1][:160] if lines else ""


# --------------------------------------------------------------------------------------------
# The tools
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Job:
    tool: str  # display name, e.g. "citekit", "pandoc 3.9"
    target: str  # csl-json | ris | bibtex | parse | scan
    stages: Callable[[Path, Path], list[list[str]]]  # (input, output) -> argv per stage
    env: dict[str, str] = field(default_factory=dict)
    ok_codes: tuple[int, ...] = (0,)
    stderr_note: Callable[[Path], str] | None = None  # a fact worth showing, read from stderr


@dataclass(slots=True)
class Peers:
    jobs: list[Job]
    skipped: list[str]
    versions: dict[str, str]


def child_env(data_dir: Path) -> dict[str, str]:
    """The environment every tool runs in: ours, but with Python's bytecode cache on (in a
    folder of the data dir, never in the repository). An installed citekit has .pyc files; with
    PYTHONDONTWRITEBYTECODE=1 (set on some dev machines) each run would recompile every module
    and charge ~0.1-0.2 s of compile time to start-up."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(data_dir / "pycache")
    return env


def citekit_command(python: str) -> list[str]:
    """The console script pip installed beside `python` (what users run), else
    `python -m citekit`. Not the first `citekit` on PATH: that can be a pyenv shim, a bash
    script that would add its own start-up to every figure."""
    beside = Path(python).parent / "citekit"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [python, "-m", "citekit"]


def find_pandoc(explicit: str | None) -> tuple[str | None, str]:
    """pandoc 3 from --pandoc, the benchmark venv's pypandoc-binary wheel, or PATH."""
    candidates = [explicit] if explicit else []
    venv = benchdata.DEFAULT_DATA_DIR / "venv" / "lib"
    candidates += sorted(str(p) for p in venv.glob("python3*/site-packages/pypandoc/files/pandoc"))
    candidates.append(shutil.which("pandoc"))
    found: list[tuple[str, str]] = []
    for cand in filter(None, candidates):
        try:
            first = subprocess.run([cand, "--version"], capture_output=True, text=True,
                                   timeout=30).stdout.splitlines()[0]
        except (OSError, subprocess.SubprocessError, IndexError):
            continue
        version = first.split()[-1]
        major = version.split(".")[0]
        if major.isdigit() and int(major) >= 3:
            return cand, version
        found.append((cand, version))
    if found:
        return None, f"only pandoc {found[0][1]} at {found[0][0]}; the targets are against pandoc 3"
    return None, "not installed (pip install pypandoc-binary, or apt-get install pandoc)"


def _citation_js_note(err: Path) -> str:
    m = re.search(r"(\d+) field value\(s\) did not parse", err.read_text(errors="replace"))
    return f"{m.group(1)} values kept raw (citation-js cannot parse them)" if m else ""


def _citekit_note(err: Path) -> str:
    lines = [ln for ln in err.read_text(errors="replace").splitlines() if ln.strip()]
    return lines[-1][:90] if lines else ""


def discover(args: argparse.Namespace) -> Peers:
    jobs: list[Job] = []
    skipped: list[str] = []
    versions: dict[str, str] = {}
    python = args.python
    base_env = child_env(args.data_dir)

    citekit = citekit_command(python)
    for target in args.formats:
        # exit 1 = some record rejected (real data has bad records); the file is still written
        jobs.append(Job("citekit", target, lambda i, o, t=target: [
            citekit + ["convert", str(i), "--to", t, "-o", str(o)] + args.citekit_args],
            base_env, ok_codes=(0, 1), stderr_note=_citekit_note))
    versions["citekit"] = subprocess.run(citekit + ["--version"], capture_output=True,
                                         text=True).stdout.strip() or "?"

    pandoc, pandoc_version = find_pandoc(args.pandoc)
    if pandoc:
        versions["pandoc"] = f"{pandoc_version} ({pandoc})"
        for target, to in (("csl-json", "csljson"), ("bibtex", "bibtex")):
            if target in args.formats:
                jobs.append(Job(f"pandoc {pandoc_version}", target, lambda i, o, to=to: [
                    [pandoc, "-f", "bibtex", "-t", to, str(i), "-o", str(o)]], base_env))
    else:
        skipped.append(f"pandoc: {pandoc_version}")

    bib2xml = shutil.which("bib2xml")
    if bib2xml:
        versions["bibutils"] = _bibutils_version(bib2xml)
        for target, back in (("ris", "xml2ris"), ("bibtex", "xml2bib")):
            if target in args.formats and shutil.which(back):
                jobs.append(Job("bibutils", target, lambda i, o, back=back: [
                    [bib2xml, "-i", "utf8", str(i)], [back]], base_env))
    else:
        skipped.append("bibutils: not installed (apt-get install bibutils)")

    node = shutil.which("node")
    modules = Path(args.node_modules)
    if not node:
        skipped.append("citation-js: node not installed")
    elif not (modules / "@citation-js" / "plugin-bibtex").is_dir():
        skipped.append(f"citation-js: not in {modules} (see benchmarks/README.md)")
    else:
        versions["citation-js"] = _npm_version(modules, "@citation-js/core")
        node_env = dict(base_env, NODE_PATH=str(modules))
        driver = str(HERE / "citation_js_convert.cjs")
        for target in args.formats:
            if target == "ris" and not (modules / "@citation-js" / "plugin-ris").is_dir():
                skipped.append("citation-js ris: @citation-js/plugin-ris not installed")
                continue
            jobs.append(Job("citation-js", target, lambda i, o, t=target: [
                [node, driver, str(i), t, str(o)]], node_env, stderr_note=_citation_js_note))

    probe = subprocess.run([python, "-c", "import bibtexparser; print(bibtexparser.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode == 0:
        versions["bibtexparser"] = probe.stdout.strip()
        jobs.append(Job("bibtexparser parse_string", "parse", lambda i, o: [[python, "-c", (
            "import sys, bibtexparser\n"
            "lib = bibtexparser.parse_string(open(sys.argv[1], encoding='utf-8').read())\n"
            "open(sys.argv[2], 'w').write(str(len(lib.entries)))"), str(i), str(o)]], base_env))
    else:
        skipped.append("bibtexparser: not importable by " + python)
    jobs.append(Job("python regex scan", "scan", lambda i, o: [[python, "-c", (
        "import re, sys\n"
        "text = open(sys.argv[1], encoding='utf-8').read()\n"
        "n = len(re.findall(r'(?m)^[ \\t]*@', text))\n"
        "open(sys.argv[2], 'w').write(str(n))"), str(i), str(o)]], base_env))
    if args.tools:
        wanted = set(args.tools)
        jobs = [j for j in jobs if j.tool.split()[0] in wanted or j.tool in wanted]
    return Peers(jobs, skipped, versions)


def _checkout_state(python: str) -> str:
    """The commit citekit is imported from, and whether its package has uncommitted changes."""
    where = subprocess.run([python, "-c", "import citekit, os; print(os.path.dirname("
                            "os.path.dirname(citekit.__file__)))"], capture_output=True, text=True)
    root = where.stdout.strip()
    if not root:
        return "not importable"
    head = subprocess.run(["git", "-C", root, "log", "-1", "--format=%h %cI"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "citekit"],
                           capture_output=True, text=True).stdout.splitlines()
    state = f"{len(dirty)} uncommitted file(s) in citekit/" if dirty else "clean"
    return f"{root} at {head or 'unknown commit'}, {state}"


def _bibutils_version(bib2xml: str) -> str:
    out = subprocess.run([bib2xml, "-v"], capture_output=True, text=True)
    m = re.search(r"version (\S+)", out.stdout + out.stderr)
    return m.group(1) if m else "?"


def _npm_version(modules: Path, package: str) -> str:
    try:
        return json.loads((modules / package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return "?"


# --------------------------------------------------------------------------------------------
# Counting what each tool wrote (after timing, so it costs the tools nothing)
# --------------------------------------------------------------------------------------------


def records_written(target: str, path: Path) -> int | None:
    try:
        if target == "csl-json":
            return len(json.loads(path.read_text(encoding="utf-8")))
        if target == "ris":
            with path.open(encoding="utf-8", errors="replace") as f:
                return sum(1 for line in f if line.startswith("ER  -"))
        if target == "bibtex":
            return benchdata.count_entries(path.read_text(encoding="utf-8", errors="replace"))
        return int(path.read_text().strip())  # parse/scan jobs write their count
    except (OSError, ValueError, TypeError):
        return None


# --------------------------------------------------------------------------------------------
# Benchmark runs
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Result:
    dataset: str
    entries: int
    tool: str
    target: str
    samples: list[Sample]
    written: int | None = None
    note: str = ""

    @property
    def good(self) -> list[Sample]:
        return [s for s in self.samples if s.ok]

    @property
    def median(self) -> float | None:
        return statistics.median(s.seconds for s in self.good) if self.good else None

    @property
    def cpu(self) -> float | None:
        return statistics.median(s.cpu for s in self.good) if self.good else None

    @property
    def peak_mib(self) -> float | None:
        return max(s.peak_kib for s in self.good) / 1024 if self.good else None


def bench_dataset(
    ds: benchdata.Dataset, jobs: list[Job], runs: int, work: Path, timeout: float
) -> list[Result]:
    results = [Result(ds.name, ds.entries, j.tool, j.target, []) for j in jobs]
    for run in range(runs):
        # one run of every tool, then the next: slow drift on a shared machine hits all alike
        for job, result in zip(jobs, results, strict=True):
            if result.samples and not result.samples[-1].ok:
                continue  # a tool that failed once fails again; do not pay for it twice
            out = work / f"{ds.name}.{job.tool.split()[0]}.{job.target}.out"
            sample = run_measured(job.stages(ds.path, out), out, env=job.env,
                                  timeout=timeout, ok_codes=job.ok_codes, require_output=out)
            result.samples.append(sample)
            status = "ok" if sample.ok else "FAILED " + sample.note
            _progress(f"  {ds.name} run {run + 1}/{runs}: {job.tool} -> {job.target}: "
                      f"{sample.seconds:.2f} s (cpu {sample.cpu:.2f}), "
                      f"{sample.peak_kib / 1024:.0f} MiB, {status}")
            if run == 0:
                result.written = records_written(job.target, out) if sample.ok else None
                err = out.with_name(out.name + ".stderr")
                if sample.ok and job.stderr_note and err.exists():
                    result.note = job.stderr_note(err)
                elif not sample.ok:
                    result.note = sample.note
    return results


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def bench_startup(
    python: str, small: benchdata.Dataset, runs: int, work: Path, data_dir: Path
) -> list[tuple[str, float, float, float]]:
    """Median wall time and peak RSS of tiny commands: what a script calling citekit pays."""
    citekit = citekit_command(python)
    out = work / "startup.out"
    json_out, bib_out = work / "startup.json", work / "startup.bib"
    env = child_env(data_dir)
    commands: list[tuple[str, list[str], tuple[int, ...], Path | None]] = [
        ("python -c pass", [python, "-c", "pass"], (0,), None),
        ("python -c 'import citekit'", [python, "-c", "import citekit"], (0,), None),
        ("citekit --help", citekit + ["--help"], (0,), None),
        (f"citekit convert ({small.entries} entries) --to csl-json",
         citekit + ["convert", str(small.path), "--to", "csl-json", "-o", str(json_out)],
         (0, 1), json_out),
        (f"citekit convert ({small.entries} entries) --to bibtex",
         citekit + ["convert", str(small.path), "--to", "bibtex", "-o", str(bib_out)],
         (0, 1), bib_out),
    ]
    rows: list[tuple[str, float, float, float]] = []
    samples: dict[str, list[Sample]] = {label: [] for label, *_ in commands}
    for _ in range(runs):
        for label, argv, codes, written in commands:
            if written is not None:
                written.unlink(missing_ok=True)
            samples[label].append(run_measured([argv], out, env=env, timeout=120,
                                               ok_codes=codes, require_output=written))
    for label, *_ in commands:
        good = [s for s in samples[label] if s.ok]
        if not good:
            rows.append((label, float("nan"), float("nan"), float("nan")))
            continue
        rows.append((label, statistics.median(s.seconds for s in good),
                     statistics.median(s.cpu for s in good),
                     max(s.peak_kib for s in good) / 1024))
    return rows


# --------------------------------------------------------------------------------------------
# Reporting
# --------------------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[list[str]], right: set[int]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in
                 enumerate(zip(row, widths, strict=True))]
        print("  " + "  ".join(cells).rstrip())
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


def report_dataset(ds: benchdata.Dataset, results: list[Result], runs: int) -> None:
    print(f"\n## {ds.name}: {ds.entries:,} entries, {ds.bytes / MiB:.1f} MiB "
          f"({ds.description}); median of {runs} run(s)\n")
    rows = [["tool", "output", "median s", "min s", "max s", "cpu s", "peak MiB", "entries/s",
             "written", "note"]]
    for r in results:
        times = [s.seconds for s in r.good]
        rows.append([
            r.tool, r.target, _fmt(r.median, ".2f"), _fmt(min(times) if times else None, ".2f"),
            _fmt(max(times) if times else None, ".2f"), _fmt(r.cpu, ".2f"),
            _fmt(r.peak_mib, ".0f"),
            _fmt(r.entries / r.median if r.median else None, ",.0f"),
            "-" if r.written is None else f"{r.written:,}",
            r.note if r.good else "FAILED: " + r.note,
        ])
    print_table(rows, right={2, 3, 4, 5, 6, 7, 8})
    ours = {r.target: r for r in results if r.tool == "citekit" and r.median}
    peers = [r for r in results if r.tool != "citekit" and r.median]
    if not ours or not peers:
        return
    print("\n  citekit / peer, same output format (parse/scan rows: citekit's CSL-JSON run); "
          "below 1 means citekit is faster or smaller:\n")
    rows = [["peer", "output", "wall ratio", "cpu ratio", "memory ratio"]]
    for peer in peers:
        mine = ours.get(peer.target) or ours.get("csl-json")
        if mine is None or mine.median is None or peer.median is None:
            continue
        rows.append([peer.tool, peer.target, f"{mine.median / peer.median:.2f}",
                     f"{(mine.cpu or 0) / peer.cpu:.2f}" if peer.cpu else "-",
                     f"{(mine.peak_mib or 0) / (peer.peak_mib or 1):.2f}"])
    print_table(rows, right={2, 3, 4})


def report_targets(all_results: dict[str, list[Result]]) -> None:
    results = all_results.get("corpus-20k")
    if not results:
        return
    print("\n## The issue's targets (20k file, citekit bib -> CSL-JSON)\n")
    by = {(r.tool.split()[0], r.target): r for r in results}
    mine = by.get(("citekit", "csl-json"))
    if mine is None or mine.median is None:
        print("  citekit bib -> CSL-JSON did not run or failed")
        return
    checks: list[tuple[str, float | None, float, str]] = []
    for peer, limit in (("citation-js", TARGET_VS_CITATION_JS), ("pandoc", TARGET_VS_PANDOC)):
        other = by.get((peer, "csl-json"))
        ratio = mine.median / other.median if other and other.median else None
        checks.append((f"wall time citekit / {peer}", ratio, limit, "x"))
        ratio = (mine.cpu or 0) / other.cpu if other and other.cpu else None
        checks.append((f"(cpu time citekit / {peer})", ratio, limit, "x"))
    checks.append(("peak memory (MiB)", mine.peak_mib, TARGET_PEAK_MIB, ""))
    for label, value, limit, unit in checks:
        if value is None:
            print(f"  {label:34}       -  (peer not measured)")
            continue
        verdict = "met" if value <= limit else "MISSED"
        print(f"  {label:34} {value:7.2f}  target <= {limit:g}{unit}  {verdict}")


def report_startup(rows: list[tuple[str, float, float, float]], runs: int) -> None:
    print(f"\n## Startup: median of {runs} runs (cpu = user + system)\n")
    base, base_cpu = rows[0][1], rows[0][2]
    table = [["command", "wall ms", "over python", "cpu ms", "cpu over python", "peak MiB"]]
    for label, seconds, cpu, peak in rows:
        table.append([label, f"{seconds * 1000:.0f}", f"{(seconds - base) * 1000:+.0f}",
                      f"{cpu * 1000:.0f}", f"{(cpu - base_cpu) * 1000:+.0f}", f"{peak:.0f}"])
    print_table(table, right={1, 2, 3, 4, 5})


# --------------------------------------------------------------------------------------------
# Profile (cProfile of the CLI path, in one process)
# --------------------------------------------------------------------------------------------


# cProfile on CPU time (process_time), not wall time: on a shared machine, wall time charges
# other people's work to whatever function happened to be running.
_PROFILE_MAIN = """\
import cProfile, runpy, sys, time
stats, sys.argv = sys.argv[1], ["citekit", *sys.argv[2:]]
profiler = cProfile.Profile(time.process_time)
try:
    profiler.runcall(runpy.run_module, "citekit", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
finally:
    profiler.dump_stats(stats)
"""


def find_py_spy() -> str | None:
    venv = benchdata.DEFAULT_DATA_DIR / "venv" / "bin" / "py-spy"
    return str(venv) if venv.exists() else shutil.which("py-spy")


def profile_py_spy(python: str, ds: benchdata.Dataset, target: str, work: Path,
                   top: int) -> None:
    """Sampling profile (py-spy, 250 Hz): no per-call overhead, so call-heavy code (the json
    encoder, small helpers) is not inflated the way cProfile inflates it."""
    spy = find_py_spy()
    if spy is None:
        print("py-spy not found (see benchmarks/README.md)")
        return
    raw = work / f"{ds.name}.{target}.py-spy.txt"
    argv = [spy, "record", "--format", "raw", "-r", "250", "-o", str(raw), "--", python, "-m",
            "citekit", "convert", str(ds.path), "--to", target, "-o",
            str(work / f"{ds.name}.profile.out"), "-q"]
    _progress(f"sampling citekit convert {ds.path} --to {target} with py-spy ...")
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=child_env(work.parent))
    total, own, inclusive = 0, Counter[str](), Counter[str]()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [_short_frame(f) for f in stack.split(";")]
        own[frames[-1]] += n
        for frame in set(frames):
            inclusive[frame] += n
    print(f"\n## py-spy: citekit convert {ds.name} --to {target}: {total} samples ({raw})")
    for title, counter in (("inclusive (function and what it calls)", inclusive),
                           ("self (the function's own code)", own)):
        print(f"\n### top {top}, {title}\n")
        for frame, n in counter.most_common(top):
            print(f"  {100 * n / total:5.1f}%  {frame}")


def _short_frame(frame: str) -> str:
    """`func (/long/path/pkg/mod.py:12)` -> `func (pkg/mod.py)`: one row per function."""
    frame = re.sub(r":\d+\)$", ")", frame.strip())
    return re.sub(r"\((?:[^()]*/)?((?:citekit|bibtexparser|json|click)/[^()]*)\)", r"(\1)", frame)


def profile(python: str, ds: benchdata.Dataset, target: str, work: Path, top: int) -> None:
    import pstats

    stats_path = work / f"{ds.name}.{target}.prof"
    argv = [python, "-c", _PROFILE_MAIN, str(stats_path), "convert", str(ds.path), "--to",
            target, "-o", str(work / f"{ds.name}.profile.out"), "-q"]
    _progress(f"profiling citekit convert {ds.path} --to {target} (CPU time) ...")
    subprocess.run(argv, stderr=subprocess.DEVNULL, check=False, env=child_env(work.parent))
    print(f"\n## cProfile (CPU time): citekit convert {ds.name} --to {target}\n"
          f"stats: {stats_path} (python -m pstats {stats_path})")
    for key in ("cumulative", "tottime"):
        print(f"\n### top {top} by {key}\n", flush=True)
        pstats.Stats(str(stats_path), stream=sys.stdout).sort_stats(key).print_stats(top)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=benchdata.DEFAULT_DATA_DIR,
                   help="cache folder for data and outputs (default: %(default)s)")
    p.add_argument("--corpus", type=Path, default=benchdata.DEFAULT_CORPUS)
    p.add_argument("--runs", type=int, default=3, help="runs per tool and file (median)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 100-entry file and TUGboat, one run, short startup check")
    p.add_argument("--big", action="store_true", help="also the 200k-entry file (slow)")
    p.add_argument("--sizes", nargs="+", choices=["tugboat", *benchdata.SIZES],
                   help="data files to run (default: tugboat corpus-20k [corpus-200k]); "
                        "messy-20k keeps the malformed files that make peers abort")
    p.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    p.add_argument("--tools", nargs="+",
                   help="only these tools: citekit pandoc bibutils citation-js bibtexparser "
                        "python")
    p.add_argument("--no-startup", action="store_true", help="skip the startup timings")
    p.add_argument("--startup-runs", type=int, default=10)
    p.add_argument("--timeout", type=float, default=900, help="seconds per run before kill")
    p.add_argument("--python", default=sys.executable,
                   help="interpreter with citekit and bibtexparser (default: this one)")
    p.add_argument("--pandoc", help="pandoc 3 binary (default: benchmark venv, then PATH)")
    p.add_argument("--node-modules", default=str(benchdata.DEFAULT_DATA_DIR / "peers" /
                                                 "citation-js" / "node_modules"))
    p.add_argument("--citekit-args", nargs=argparse.REMAINDER, default=[],
                   help="extra arguments for every citekit convert (put last)")
    p.add_argument("--profile", choices=FORMATS, metavar="FORMAT",
                   help="instead of timing, profile citekit's conversion to FORMAT "
                        "(see --profiler) on --sizes")
    p.add_argument("--profile-top", type=int, default=25)
    p.add_argument("--profiler", choices=["cprofile", "py-spy", "both"], default="both",
                   help="cProfile (CPU time, exact calls, inflates call-heavy code) and/or "
                        "py-spy (sampling; fair shares)")
    p.add_argument("--json", type=Path, help="also write all samples here as JSON")
    args = p.parse_args(argv)
    if args.quick:
        args.runs = 1
        args.startup_runs = min(args.startup_runs, 3)
    if not args.sizes:
        args.sizes = (["corpus-100", "tugboat"] if args.quick else ["tugboat", "corpus-20k"])
        if args.big:
            args.sizes.append("corpus-200k")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    work = args.data_dir / "out"
    work.mkdir(parents=True, exist_ok=True)
    names = tuple(dict.fromkeys(["corpus-100", *args.sizes]))
    _progress(f"building data in {args.data_dir / 'data'} ...")
    datasets = benchdata.build(args.data_dir, args.corpus, names)

    if args.profile:
        for name in args.sizes:
            if args.profiler in ("cprofile", "both"):
                profile(args.python, datasets[name], args.profile, work, args.profile_top)
            if args.profiler in ("py-spy", "both"):
                profile_py_spy(args.python, datasets[name], args.profile, work,
                               args.profile_top)
        return 0

    peers = discover(args)
    load = os.getloadavg()
    print(f"# citekit conversion benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
          f"{platform.release()}; load average at start {load[0]:.2f} {load[1]:.2f}")
    print("versions: " + "; ".join(f"{k} {v}" for k, v in peers.versions.items()))
    print(f"citekit code: {_checkout_state(args.python)}")
    print("each run is a child process: startup and file I/O count. Peak memory is the largest "
          "of ru_maxrss and the sampled RSS sum of the process tree. Python children keep "
          f"bytecode caches in {args.data_dir / 'pycache'}, as an installed package would.")
    for reason in peers.skipped:
        print(f"skipped: {reason}")

    everything: dict[str, list[Result]] = {}
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        for name in args.sizes:
            ds = datasets[name]
            runs = args.runs
            results = bench_dataset(ds, peers.jobs, runs, Path(tmp), args.timeout)
            everything[name] = results
            report_dataset(ds, results, runs)
        report_targets(everything)
        if not args.no_startup and (not args.tools or "citekit" in args.tools):
            rows = bench_startup(args.python, datasets["corpus-100"], args.startup_runs,
                                 Path(tmp), args.data_dir)
            report_startup(rows, args.startup_runs)
    if args.json:
        args.json.write_text(json.dumps({
            "versions": peers.versions, "skipped": peers.skipped,
            "results": [{"dataset": r.dataset, "entries": r.entries, "tool": r.tool,
                         "target": r.target, "written": r.written, "note": r.note,
                         "samples": [[s.seconds, s.cpu, s.peak_kib, s.ok] for s in r.samples]}
                        for rs in everything.values() for r in rs],
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
