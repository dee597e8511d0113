"""First-call latency of exactune's torch ops, with and without the kernel export
(docs/runtime.md): what a serving process pays at its first sight of a problem.

Each figure is one fresh process's first call of an op, on the first default
shape of each family (shapes/<name>.yaml; the token-major family's through the
layer_norm_modulate op with x permuted, as python/tools/runtime_bench.py does),
in three settings:
  export        EXACTUNE_EXPORT_DIR=the export, an empty compile cache and
                EXACTUNE_NVRTC_LIBRARY naming no file: the kernel can only come
                from the export (no toolkit at run time);
  nvrtc-cached  EXACTUNE_EXPORT_DIR=off, the compile cache already holding the
                kernel (a process before has compiled it): NVRTC's path, warm;
  nvrtc-cold    EXACTUNE_EXPORT_DIR=off, an empty compile cache: NVRTC compiles.
The process first imports torch and exactune.torch (its op library is built
once, outside the figures), makes the inputs and runs the eager chain once, so
that neither torch's own first-call costs nor the import count; then it times
the op's first call to a synchronize (the runtime's resolution, the kernel's
compile or load, the exactness gate's eager comparison, the launch), then its
second (the steady state). The median of --repeats processes per figure.

    build/exactune export --out EXPORT
    python3 python/tools/first_call_bench.py --export EXPORT --out first_call.json     (ci/gpu.sh first-call)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
SETTINGS = ("export", "nvrtc-cached", "nvrtc-cold")
# Every family runtime_bench.py has a case of (CASES there, which imports torch: this process does not).
FAMILIES = ("layer_norm_modulate", "qk_head_layer_norm", "layer_norm_modulate_token_major",
            "gated_residual_layer_norm_modulate")
NO_NVRTC = "/nonexistent/libnvrtc.so"  # in the export setting: a compile would fail, naming it
# What the runtime logs once when a family's kernel came from the export (harness/runtime/family_server.cpp).
FROM_EXPORT = "kernels loaded from the export in"


def setting_environment(setting, export, cache, base=None):
    """The environment of a measuring process in `setting`, with `cache` as its compile cache."""
    env = dict(os.environ if base is None else base)
    env["EXACTUNE_CACHE_DIR"] = str(cache)
    env.pop("EXACTUNE_LOG", None)  # the runtime's log says where the kernel came from
    if setting == "export":
        env["EXACTUNE_EXPORT_DIR"] = str(export)
        env["EXACTUNE_NVRTC_LIBRARY"] = NO_NVRTC
    elif setting in ("nvrtc-cached", "nvrtc-cold"):
        env["EXACTUNE_EXPORT_DIR"] = "off"
    else:
        raise ValueError(f"unknown setting {setting}")
    return env


def read_child(stdout, stderr):
    """A measuring process's result: its JSON line, and whether the runtime loaded from the export."""
    result = json.loads(stdout.strip().splitlines()[-1])
    result["from_export"] = FROM_EXPORT in stderr
    return result


def summarize(runs):
    """Per family and setting, over the runs ({family, setting, first_ms, second_ms, served, from_export}):
    the median first and second call, and whether every run was served (and, in the export setting, from it)."""
    summary = {}
    for family in dict.fromkeys(r["family"] for r in runs):
        summary[family] = {}
        for setting in SETTINGS:
            rows = [r for r in runs if r["family"] == family and r["setting"] == setting]
            if not rows:
                continue
            summary[family][setting] = dict(
                first_ms=statistics.median(r["first_ms"] for r in rows),
                second_ms=statistics.median(r["second_ms"] for r in rows),
                runs=len(rows), variant=rows[0]["variant"],
                served=all(r["served"] for r in rows),
                from_export=all(r["from_export"] for r in rows))
    return summary


def problems(summary):
    """What makes the figures wrong: a run not served, or the export setting not loading from the export (or
    another loading from it)."""
    found = []
    for family, settings in summary.items():
        for setting, row in settings.items():
            if not row["served"]:
                found.append(f"{family} {setting}: the op was not served (ran eager)")
            if row["from_export"] != (setting == "export"):
                found.append(f"{family} {setting}: {'not ' if setting == 'export' else ''}loaded from the export")
    return found


def measure_in_this_process(family):
    """The child: one family's first and second call, as one JSON line on stdout."""
    import time

    import torch

    import exactune.torch as et
    from exactune.shapes import default_shapes
    sys.path.insert(0, str(TOOLS))
    from runtime_bench import CASES, FAMILY_OPS

    shape = default_shapes(family)[0]
    make, eager, op, _ = CASES[family](shape)  # the op as exactune.torch calls it, its dispatcher path
    gate = FAMILY_OPS[family]
    with torch.inference_mode():
        args = make(1.0)
        eager(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(2):
            start = time.perf_counter()
            op(*args)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - start) * 1e3)
    status = et.gate_status(gate)
    print(json.dumps(dict(family=family, shape=shape["name"], first_ms=times[0], second_ms=times[1],
                          served=status["verified"] == 1 and status["failures"] == 0,
                          variant=et.last_variant(gate) or "")))


def run_child(family, setting, export, cache):
    env = setting_environment(setting, export, cache)
    child = subprocess.run([sys.executable, __file__, "--child", family], env=env, capture_output=True, text=True)
    if child.returncode != 0:
        sys.exit(f"first_call_bench: {family} in setting {setting} failed (exit {child.returncode}):\n"
                 f"{child.stdout}{child.stderr}")
    result = read_child(child.stdout, child.stderr)
    result["setting"] = setting
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--export", type=Path, help="the kernel export (exactune export --out DIR)")
    parser.add_argument("--out", type=Path, help="the JSON to write")
    parser.add_argument("--repeats", type=int, default=3, help="processes per figure (default 3)")
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        measure_in_this_process(options.child)
        return
    if not options.export or not options.out:
        parser.error("--export and --out are required")
    if not (options.export / "exactune_export.tsv").is_file():
        sys.exit(f"first_call_bench: --export {options.export}: no exactune_export.tsv (exactune export --out DIR)")
    runs = []
    with tempfile.TemporaryDirectory(prefix="exactune-first-call-") as work:
        work = Path(work)
        warm = work / "warm-cache"
        for family in options.families:
            run_child(family, "nvrtc-cold", options.export, warm)  # fills the warm cache (and builds the op library)
            for repeat in range(options.repeats):
                for setting in SETTINGS:
                    cache = warm if setting == "nvrtc-cached" else work / f"empty-{family}-{setting}-{repeat}"
                    runs.append(run_child(family, setting, options.export, cache))
    summary = summarize(runs)
    import torch  # only for the device's name, in the parent
    result = dict(gpu=torch.cuda.get_device_name(), export=str(options.export), repeats=options.repeats,
                  method=__doc__.split("\n\n")[1], summary=summary, runs=runs)
    options.out.write_text(json.dumps(result, indent=2) + "\n")
    for family, settings in summary.items():
        cells = "  ".join(f"{s} {row['first_ms']:8.1f} ms" for s, row in settings.items())
        print(f"{family:32} first call: {cells}  (then {settings['export']['second_ms']:.3f} ms)")
    found = problems(summary)
    if found:
        sys.exit("first_call_bench: " + "; ".join(found))
    export_ms = max(settings["export"]["first_ms"] for settings in summary.values())
    cold_ms = min(settings["nvrtc-cold"]["first_ms"] for settings in summary.values())
    print(f"wrote {options.out}: first call at most {export_ms:.1f} ms from the export, at least {cold_ms:.1f} ms "
          "compiled cold")


if __name__ == "__main__":
    main()
