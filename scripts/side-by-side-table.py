#!/usr/bin/env python3
"""The tables of scripts/side-by-side.sh, from the files it leaves in WORK.

    scripts/side-by-side-table.py WORK GT_4KU TT ETH_GT ETH SKIP_ETHEREAL

(the runs' names in WORK, as side-by-side.sh names them: gradtune's and texel-tuner's on 4ku,
gradtune's and Ethereal's tuner's on Ethereal)

Reads, for each run NAME, WORK/NAME.time (GNU time -v: wall and peak memory), WORK/NAME.log
(its stdout, each line stamped with the seconds since it started), and for gradtune's runs
WORK/NAME/summary.json, WORK/NAME/log.jsonl (the fit's losses with the seconds since the fit
began) and WORK/NAME.fit-start (when the fit began); WORK/*.eval.json are `tune eval --json`
of each tuner's final integer weights. Prints markdown.
"""
import json
import os
import re
import sys


def read_time(path):
    """Wall seconds and peak resident memory (MB) from a GNU `time -v` report."""
    wall = rss = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                clock = line.rsplit(" ", 1)[1].split(":")
                wall = sum(float(x) * 60 ** i for i, x in enumerate(reversed(clock)))
            elif line.startswith("Maximum resident set size"):
                rss = int(line.rsplit(" ", 1)[1]) / 1024
    return wall, rss


def stamped(path):
    """The (seconds, text) lines of a stamped log."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            t, _, text = line.rstrip("\n").partition("\t")
            out.append((float(t), text))
    return out


class Gradtune:
    def __init__(self, work, name):
        self.dir = os.path.join(work, name)
        with open(os.path.join(self.dir, "summary.json")) as f:
            self.summary = json.load(f)
        with open(os.path.join(self.dir, "log.jsonl")) as f:
            self.log = [json.loads(line) for line in f if line.strip()]
        with open(os.path.join(work, name + ".fit-start")) as f:
            self.fit_start = float(f.read())
        self.wall, self.rss = read_time(os.path.join(work, name + ".time"))

    def time_to(self, loss):
        """Seconds from the command's start to the first iterate at or below `loss`."""
        for rec in self.log:
            if rec.get("train_loss") is not None and rec["train_loss"] <= loss:
                return self.fit_start + rec["seconds"]
        return None

    def fit_seconds(self):
        fits = [r["seconds"] for r in self.log if r.get("stage") != "start"]
        return max(fits) if fits else 0.0


def judged(path):
    """The squared-error loss at the given K of a `tune eval --json` report."""
    with open(path) as f:
        return json.load(f)["given"]["mse"]


def fmt(x, digits=6):
    return "-" if x is None else f"{x:.{digits}f}"


def secs(x):
    return "-" if x is None else f"{x:.1f} s"


def mb(x):
    return "-" if x is None else f"{x:.0f} MB"


def texel_tuner(work, name):
    """texel-tuner's printed errors by epoch, with the seconds at which each was printed."""
    epochs = []
    loaded = None
    for t, text in stamped(os.path.join(work, name + ".log")):
        m = re.search(r"Epoch (\d+) \(.*?\), error ([0-9.eE+-]+)", text)
        if m:
            epochs.append((int(m.group(1)), float(m.group(2)), t))
        elif "Data loading complete" in text and loaded is None:
            loaded = t
    return epochs, loaded


def table_4ku(work, g4, t4):
    gt = Gradtune(work, g4)
    epochs, tt_loaded = texel_tuner(work, t4)
    if not epochs:
        sys.exit(f"{work}/{t4}.log: texel-tuner printed no epoch")
    tt_epoch, tt_final, tt_final_at = epochs[-1]
    tt_wall, tt_rss = read_time(os.path.join(work, t4 + ".time"))
    judge = lambda name: judged(os.path.join(work, name + ".eval.json"))
    with open(os.path.join(work, g4 + ".held.eval.json")) as f:
        held = json.load(f)["positions"]
    s = gt.summary
    positions = s["positions"][0] + held
    tight = Gradtune(work, g4 + "-tight") if os.path.exists(
        os.path.join(work, g4 + "-tight", "summary.json")) else None
    reach = tight or gt
    rows = [
        ("training positions", f"{s['positions'][0]:,}", "the same"),
        ("load, to the fit's start", secs(gt.fit_start), secs(tt_loaded)),
        ("fit", f"{secs(gt.fit_seconds())}, {s['iterations']} iterations, "
                f"{s['passes']:.0f} passes", f"{tt_epoch:,} epochs of Adam, "
                f"{secs(tt_final_at - (tt_loaded or 0))}"),
        ("final loss, unrounded, training", fmt(s["train_loss"][1]) + (
            f" ({fmt(tight.summary['train_loss'][1])} to the tighter stop, "
            f"{tight.summary['iterations']} iterations)" if tight else ""),
         f"{fmt(tt_final)} (its last printed error)"),
        ("time to the training loss of texel-tuner's final weights (its printed integers, "
         "judged by gradtune)", secs(gt.time_to(judge(t4 + ".train"))), secs(tt_final_at)),
        ("time to texel-tuner's own last printed error" + (" (the tighter stop's run)"
                                                          if tight else ""),
         secs(reach.time_to(tt_final)), secs(tt_final_at)),
        ("whole run, wall", secs(gt.wall) + (f" ({secs(tight.wall)} to the tighter stop)"
                                             if tight else ""), secs(tt_wall)),
        ("peak memory", mb(gt.rss), mb(tt_rss)),
        ("integer weights: training loss", fmt(judge(g4 + ".train")), fmt(judge(t4 + ".train"))),
        (f"integer weights: held-out loss ({held:,} positions)", fmt(judge(g4 + ".held")),
         fmt(judge(t4 + ".held"))),
        ("rounding cost after polish (training)",
         f"{s['rounding']['cost_after_polish']:.2e}", "-"),
    ]
    print(f"### 4ku, {positions:,} positions: gradtune and texel-tuner\n")
    print("Both from zero on the same training positions (the games whose number does not end "
          "in 9), K 0.912011 base 10 (texel-tuner's 2.1 base e), 2 threads each; the integer "
          "weights judged by `tune eval` on the training and the held-out positions. gradtune's "
          "figures are its defaults' (stopped when the loss falls by less than 1e-5 of itself "
          "over 5 iterations)" + ("; in parentheses a second run to `--stop-rel-loss 1e-7`"
                                  if tight else "") + ".\n")
    print("| | gradtune | texel-tuner |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print()


def table_ethereal(work, ge, te):
    gt = Gradtune(work, ge)
    eth_wall, eth_rss = read_time(os.path.join(work, te + ".time"))
    eth_final = judged(os.path.join(work, te + "-final.eval.json"))
    positions = gt.summary["positions"][0]
    start = gt.log[0]["train_loss"] if gt.log else None
    s = gt.summary
    last = [(int(m.group(1)), float(m.group(2)), t) for t, text in stamped(os.path.join(work, te + ".log"))
            for m in [re.search(r"Epoch \[(\d+)\] Error = \[([0-9.eE+-]+)\]", text)] if m]
    eth_epoch, eth_error, eth_at = last[-1] if last else (0, None, None)
    rows = [
        ("positions", f"{s['positions'][0]:,} (all)", "the same, all"),
        ("loss of the shipped weights", fmt(start), "-"),
        ("load, to the fit's start", secs(gt.fit_start), "-"),
        ("fit", f"{secs(gt.fit_seconds())}, {s['iterations']} iterations",
         f"{eth_epoch:,} epochs of AdaGrad (its last error {fmt(eth_error)} at its own K), "
         f"the last at {secs(eth_at)}"),
        ("final loss, integer weights", fmt(judged(os.path.join(work, ge + ".eval.json"))),
         fmt(eth_final)),
        ("time to the loss of Ethereal's final weights (its printed integers)",
         secs(gt.time_to(eth_final)), secs(eth_wall)),
        ("whole run, wall", secs(gt.wall), secs(eth_wall)),
        ("peak memory", mb(gt.rss), mb(eth_rss)),
    ]
    print(f"### Ethereal, {positions:,} positions: gradtune and Ethereal's tuner\n")
    print(f"Both from the shipped weights; losses at gradtune's fitted K {s['k']:.4f} (base "
          "10); 2 threads each.\n")
    print("| | gradtune | Ethereal's tuner |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print()


def main():
    if len(sys.argv) != 7:
        sys.exit(f"usage: {sys.argv[0]} WORK GT_4KU TT ETH_GT ETH SKIP_ETHEREAL")
    work, g4, t4, ge, te, skip = sys.argv[1:]
    table_4ku(work, g4, t4)
    if skip != "1":
        table_ethereal(work, ge, te)


if __name__ == "__main__":
    main()
