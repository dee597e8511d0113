"""Checks one planted-fault run of `exactune verify` (ci/gpu.sh, stage faults).

A fault is caught only when verify exited 1, every build compiled and ran
("0 failed, 0 not run"), and every variant of the run was incorrect on at least
one shape: the run's glob names only variants that can show the fault, so one
variant that stays exact is a hole in the verifier, not luck.
    usage: check_fault_run.py LOG EXIT_CODE
Prints one line; exits 0 when caught, 1 when not.
"""
import re
import sys


def main():
    log_path, exit_code = sys.argv[1], int(sys.argv[2])
    lines = open(log_path, encoding="utf-8", errors="replace").read().splitlines()
    summary = next((l for l in reversed(lines) if l.startswith("verify on ")), "")
    caught_by = {}
    for line in lines:
        fields = line.split()
        # Table rows: shape, variant, cases ("7/8"), result ("exact" or a failure).
        if len(fields) >= 4 and re.fullmatch(r"\d+/\d+", fields[2]):
            caught_by.setdefault(fields[1], False)
            caught_by[fields[1]] |= fields[3] != "exact"
    problems = []
    if exit_code != 1:
        problems.append(f"exit {exit_code}, expected 1")
    if not re.search(r" [1-9][0-9]* incorrect, 0 failed, 0 not run", summary):
        problems.append("not every run compiled and ran, or none was incorrect")
    if not caught_by:
        problems.append("no variant ran")
    missed = sorted(v for v, caught in caught_by.items() if not caught)
    if missed:
        problems.append(f"{len(missed)} of {len(caught_by)} variants stayed exact, e.g. {missed[0]}")
    if problems:
        print(f"NOT caught: {'; '.join(problems)}: {summary}")
        return 1
    print(f"caught by all {len(caught_by)} variants: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
