#!/usr/bin/env python3
"""Retrieval evaluation: skilldeck's search against a plain BM25 baseline.

    bench/retrieval/run.py --tree DIR [--bin SKILLDECK] [--queries FILE] [--json OUT]
                           [--failures N] [--baseline-only]

Both systems rank the skills skilldeck exposes for the tree (`skilldeck list
--json`, so duplicate names resolve the way skilldeck resolves them) for every
request in queries.jsonl, in one run, and the table puts them side by side:

- skilldeck: `skilldeck search --queries FILE --limit 10 --json --root DIR`, one
  process for the whole set (catalog and index built once).
- baseline: BM25 over name + description only, k1 = 1.2, b = 0.75, lowercase
  ASCII-alphanumeric tokens, no stemming, no abstention.

Metrics over the answerable requests (those with labels); an abstention there
is an empty ranking, so it costs recall:
- R@1, R@10: share of requests with a relevant skill (grade 1 or 2) in the top k.
- NDCG@10: graded gains 2^grade - 1, log2 discount, ideal from every label.
- MRR: reciprocal rank of the first relevant skill (0 past rank 10).
Over the no-skill requests (no labels): the share the system abstains on.
"Lost to abstention": the share of answerable requests the system abstains on.
Reachable: the share of answerable requests with a relevant skill either in the
level 1 `skilldeck serve` sends as its `instructions` (default budget) or in
the top 10 of one `find_skills` call (the search's ranking).

Standard library only. The tree comes from bench/retrieval/fetch_tree.sh.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
K = 10
BM25_K1 = 1.2
BM25_B = 0.75


# ---------------------------------------------------------------- the set


def load_queries(path: Path) -> list[dict]:
    """Reads queries.jsonl and checks each line's shape; raises ValueError on a bad line."""
    queries = []
    seen = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        record = json.loads(line)
        where = f"{path}:{number}"
        if set(record) - {"id", "query", "relevant", "paths"} or not {"id", "query", "relevant"} <= set(record):
            raise ValueError(f"{where}: keys must be id, query, relevant (and paths), got {sorted(record)}")
        if record["id"] in seen:
            raise ValueError(f"{where}: duplicate id {record['id']!r}")
        seen.add(record["id"])
        query = record["query"]
        # The batch CLI reads one query per line: a line break would split it.
        if not isinstance(query, str) or not query.strip() or "\n" in query or "\r" in query:
            raise ValueError(f"{where}: query must be one non-empty line")
        relevant = record["relevant"]
        if not isinstance(relevant, dict) or any(g not in (1, 2) for g in relevant.values()):
            raise ValueError(f"{where}: relevant must map names to grade 1 or 2")
        if relevant and 2 not in relevant.values():
            raise ValueError(f"{where}: a labelled request needs at least one grade-2 skill")
        queries.append(record)
    return queries


# ---------------------------------------------------------------- the baseline

TOKEN = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    """The baseline's tokens: lowercase ASCII letters and digits, nothing else."""
    return TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over one field per document; ties keep document order."""

    def __init__(self, documents: list[str], k1: float = BM25_K1, b: float = BM25_B):
        self.k1, self.b = k1, b
        self.term_counts = [Counter(tokens(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.term_counts]
        self.average_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        self.postings: dict[str, list[int]] = {}
        for index, counts in enumerate(self.term_counts):
            for term in counts:
                self.postings.setdefault(term, []).append(index)
        n = len(documents)
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def rank(self, query: str, k: int = K) -> list[tuple[int, float]]:
        scores: dict[int, float] = {}
        for term in set(tokens(query)):
            for index in self.postings.get(term, ()):
                tf = self.term_counts[index][term]
                norm = self.k1 * (1 - self.b + self.b * self.lengths[index] / self.average_length)
                scores[index] = scores.get(index, 0.0) + self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ranked[:k]


# ---------------------------------------------------------------- metrics


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(rank + 2) for rank, g in enumerate(gains))


def score_ranking(ranking: list[str], relevant: dict[str, int], k: int = K) -> dict[str, float]:
    """R@1, R@k, NDCG@k and reciprocal rank of one ranking against graded labels."""
    top = ranking[:k]
    hits = [name in relevant for name in top]
    ideal = sorted((2**g - 1 for g in relevant.values()), reverse=True)[:k]
    first = next((rank for rank, hit in enumerate(hits, 1) if hit), None)
    return {
        "r1": float(bool(hits[:1] and hits[0])),
        "r10": float(any(hits)),
        "ndcg10": dcg([2 ** relevant.get(name, 0) - 1 for name in top]) / dcg(ideal),
        "mrr": 1.0 / first if first else 0.0,
    }


def evaluate(queries: list[dict], rankings: list[list[str]], abstained: list[bool]) -> dict[str, float]:
    """Averages the per-request scores; abstentions are empty rankings."""
    answerable = [(q, r, a) for q, r, a in zip(queries, rankings, abstained) if q["relevant"]]
    no_skill = [a for q, a in zip(queries, abstained) if not q["relevant"]]
    totals = Counter()
    for query, ranking, did_abstain in answerable:
        totals.update(score_ranking([] if did_abstain else ranking, query["relevant"]))
    n = len(answerable)
    return {
        "R@1": totals["r1"] / n,
        "R@10": totals["r10"] / n,
        "NDCG@10": totals["ndcg10"] / n,
        "MRR": totals["mrr"] / n,
        "abstain_no_skill": sum(no_skill) / len(no_skill) if no_skill else 0.0,
        "lost_to_abstention": sum(a for _, _, a in answerable) / n,
    }


# ---------------------------------------------------------------- the systems


def exposed_skills(binary: str, tree: Path) -> list[dict]:
    out = subprocess.run([binary, "list", "--json", "--root", str(tree)], capture_output=True, check=True)
    return json.loads(out.stdout)["skills"]


def run_skilldeck(binary: str, tree: Path, queries: list[dict]) -> tuple[list[dict], float]:
    """One batch process over every query; returns its JSON lines and wall time."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as file:
        file.write("".join(q["query"] + "\n" for q in queries))
        path = file.name
    try:
        command = [binary, "search", "--queries", path, "--limit", str(K), "--json", "--root", str(tree)]
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, check=True)
        elapsed = time.perf_counter() - start
    finally:
        os.unlink(path)
    answers = [json.loads(line) for line in out.stdout.decode("utf-8").splitlines() if line.strip()]
    if len(answers) != len(queries):
        raise SystemExit(f"run: skilldeck answered {len(answers)} lines for {len(queries)} queries")
    for query, answer in zip(queries, answers):
        if answer.get("query") != query["query"]:
            raise SystemExit(f"run: skilldeck answered {answer.get('query')!r} for {query['query']!r}")
    return answers, elapsed


def level1_names(binary: str, tree: Path) -> set[str]:
    """The skills listed in the `instructions` of `skilldeck serve --root TREE` (waiting
    for the whole catalog): what a model sees before it calls any tool."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "run.py", "version": "0"}}}
    command = [binary, "serve", "--root", str(tree), "--instructions-wait", "600000"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as serve:
        assert serve.stdin is not None and serve.stdout is not None
        serve.stdin.write((json.dumps(initialize) + "\n").encode())
        serve.stdin.flush()
        answer = json.loads(serve.stdout.readline())
        serve.stdin.close()
        serve.wait(timeout=60)
    instructions = answer["result"].get("instructions") or ""
    return set(re.findall(r"^- \*\*(.+?)\*\*: ", instructions, re.MULTILINE))


def reachable(queries: list[dict], rankings: list[list[str]], listed: set[str]) -> float:
    """The share of answerable requests with a relevant skill in `listed` or the top K."""
    answerable = [(q, r) for q, r in zip(queries, rankings) if q["relevant"]]
    hits = sum(1 for q, r in answerable if set(q["relevant"]) & (listed | set(r[:K])))
    return hits / max(len(answerable), 1)


def per_query_seconds(binary: str, tree: Path, queries: list[dict], batch_seconds: float, runs: int = 3):
    """Mean query cost from the batch: (whole batch - one-query batch) / (n - 1).

    The batch CLI reports no per-query times, so this is an amortised mean
    (median of `runs` one-query batches subtracted from the median of three
    whole batches), not a median or p99 of single queries.
    """
    singles = [run_skilldeck(binary, tree, queries[:1])[1] for _ in range(runs)]
    return max(batch_seconds - statistics.median(singles), 0.0) / max(len(queries) - 1, 1), statistics.median(singles)


# ---------------------------------------------------------------- report


# Answerable requests a001-a241 name the tool they want; from a242 on they say a
# symptom or a goal in the user's own words (see README.md).
OWN_WORDS_FROM = 242


def kind(query: dict) -> str:
    return "own words" if int(query["id"][1:]) >= OWN_WORDS_FROM else "tool named"


def table(rows: dict[str, dict[str, float]]) -> str:
    columns = ["R@1", "R@10", "NDCG@10", "MRR", "abstain_no_skill", "lost_to_abstention"]
    heads = ["system", "R@1", "R@10", "NDCG@10", "MRR", "abstains (no-skill)", "lost to abstention"]
    lines = ["| " + " | ".join(heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
    for system, m in rows.items():
        cells = [f"{m[c]:.3f}" if c in ("NDCG@10", "MRR") else f"{100 * m[c]:.1f}%" for c in columns]
        lines.append("| " + " | ".join([system, *cells]) + " |")
    return "\n".join(lines)


def failures(queries, answers, limit):
    """The requests skilldeck gets wrong, for its ranker's authors."""
    lines = []
    for query, answer in zip(queries, answers):
        names = [r["name"] for r in answer["results"]]
        if query["relevant"]:
            if answer["abstained"]:
                lines.append(f"  ABSTAINED  {query['id']}: {query['query']!r} (wants {sorted(query['relevant'])})")
            elif not any(n in query["relevant"] for n in names):
                lines.append(f"  MISSED     {query['id']}: {query['query']!r} (wants {sorted(query['relevant'])}, got {names[:3]})")
        elif not answer["abstained"]:
            lines.append(f"  ANSWERED   {query['id']}: {query['query']!r} (got {names[:3]})")
    print(f"\nskilldeck's failures ({len(lines)}):")
    print("\n".join(lines[:limit]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=os.environ.get("SKILLDECK_EVAL_TREE"),
                        help="the checked-out tree (fetch_tree.sh); default $SKILLDECK_EVAL_TREE")
    parser.add_argument("--bin", default=os.environ.get("SKILLDECK_BIN", "skilldeck"),
                        help="the skilldeck binary; default $SKILLDECK_BIN or skilldeck on PATH")
    parser.add_argument("--queries", type=Path, default=HERE / "queries.jsonl")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--failures", type=int, default=0, metavar="N",
                        help="print up to N requests skilldeck gets wrong")
    parser.add_argument("--baseline-only", action="store_true",
                        help="skip `skilldeck search` (a binary without it still lists the tree)")
    args = parser.parse_args(argv)
    if args.tree is None or not args.tree.is_dir():
        parser.error("--tree DIR (or SKILLDECK_EVAL_TREE) must name the tree fetch_tree.sh checked out")

    queries = load_queries(args.queries)
    skills = exposed_skills(args.bin, args.tree)
    names = [s["name"] for s in skills]
    exposed = set(names)
    unknown = sorted({n for q in queries for n in q["relevant"] if n not in exposed})
    if unknown:
        # Labels are exposed names at the pinned commit; a miss means another tree.
        raise SystemExit(f"run: {len(unknown)} labelled skills are not exposed by this tree: {unknown[:10]}")

    baseline = BM25([f"{s['name']} {s.get('description') or ''}" for s in skills])
    base_rankings = [[names[i] for i, _ in baseline.rank(q["query"])] for q in queries]
    rows = {"BM25 name+description": evaluate(queries, base_rankings, [False] * len(queries))}

    report = {"queries": len(queries), "answerable": sum(1 for q in queries if q["relevant"]),
              "no_skill": sum(1 for q in queries if not q["relevant"]), "skills": len(skills)}
    if not args.baseline_only:
        answers, seconds = run_skilldeck(args.bin, args.tree, queries)
        rankings = [[r["name"] for r in a["results"]] for a in answers]
        rows["skilldeck"] = evaluate(queries, rankings, [bool(a["abstained"]) for a in answers])
        # One batch is noisy on a shared machine: time it twice more, keep the median.
        seconds = statistics.median([seconds] + [run_skilldeck(args.bin, args.tree, queries)[1] for _ in range(2)])
        mean, single = per_query_seconds(args.bin, args.tree, queries, seconds)
        report["skilldeck_batch_seconds"] = seconds
        report["skilldeck_one_query_batch_seconds"] = single
        report["skilldeck_mean_query_ms"] = 1000 * mean

    print(f"{report['queries']} requests ({report['answerable']} answerable, {report['no_skill']} no-skill) "
          f"over {report['skills']} exposed skills\n")
    print(table(rows))
    by_kind = {}
    for label in ("tool named", "own words"):
        picked = [i for i, q in enumerate(queries) if q["relevant"] and kind(q) == label]
        if not picked:
            continue
        subset = [queries[i] for i in picked]
        by_kind[f"{label}: BM25"] = evaluate(subset, [base_rankings[i] for i in picked], [False] * len(picked))
        if not args.baseline_only:
            by_kind[f"{label}: skilldeck"] = evaluate(subset, [rankings[i] for i in picked],
                                                      [bool(answers[i]["abstained"]) for i in picked])
    print("\nBy kind of answerable request (no-skill columns do not apply):\n")
    print(table(by_kind))
    report["by_kind"] = by_kind
    if "skilldeck_batch_seconds" in report:
        print(f"\nskilldeck batch: {report['skilldeck_batch_seconds']:.2f} s for {len(queries)} queries "
              f"(one-query batch {single:.2f} s: walk + index); "
              f"mean query {report['skilldeck_mean_query_ms']:.2f} ms amortised")
        listed = level1_names(args.bin, args.tree)
        report["level1_listed"] = len(listed)
        report["reachable"] = reachable(queries, rankings, listed)
        in_level1 = sum(1 for q in queries if set(q["relevant"]) & listed)
        print(f"reachable in level 1 ({len(listed)} skills listed; the labelled skill in it for {in_level1}) "
              f"or by one find_skills call: {100 * report['reachable']:.1f}% of answerable requests")
        if args.failures:
            failures(queries, answers, args.failures)
    if args.json:
        report["systems"] = rows
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
