"""Tests of the retrieval bench: the set's shape, the metrics, the baseline.

    python3 -m unittest discover -s bench/retrieval -v

Tests that need the labelled tree (bench/retrieval/fetch_tree.sh) or a skilldeck
binary skip and say which variable to set: SKILLDECK_EVAL_TREE, SKILLDECK_BIN.
"""

import contextlib
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402

TREE = os.environ.get("SKILLDECK_EVAL_TREE")
BIN = os.environ.get("SKILLDECK_BIN")


class TheSet(unittest.TestCase):
    def setUp(self):
        self.queries = run.load_queries(HERE / "queries.jsonl")

    def test_sizes(self):
        answerable = [q for q in self.queries if q["relevant"]]
        no_skill = [q for q in self.queries if not q["relevant"]]
        self.assertGreaterEqual(len(answerable), 200)
        self.assertGreaterEqual(len(no_skill), 50)

    def test_every_label_records_its_path(self):
        for q in self.queries:
            if q["relevant"]:
                self.assertEqual(set(q["paths"]), set(q["relevant"]), q["id"])
                for path in q["paths"].values():
                    self.assertTrue(path.startswith("mirrors/repos/") and path.endswith("/SKILL.md"), path)
            else:
                self.assertNotIn("paths", q, q["id"])

    def test_queries_are_distinct(self):
        texts = [q["query"].casefold() for q in self.queries]
        self.assertEqual(len(texts), len(set(texts)))


class LoadQueries(unittest.TestCase):
    def load(self, *records):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as file:
            file.write("".join(json.dumps(r) + "\n" for r in records))
        self.addCleanup(os.unlink, file.name)
        return run.load_queries(Path(file.name))

    def test_refuses_what_the_batch_cli_would_split_or_misread(self):
        good = {"id": "a", "query": "q", "relevant": {"x": 2}}
        self.assertEqual(self.load(good), [good])
        for bad in (
            {**good, "query": "two\nlines"},
            {**good, "query": "  "},
            {**good, "relevant": {"x": 3}},
            {**good, "relevant": {"x": 1}},  # labelled, but nothing is the one needed
            {**good, "extra": 1},
        ):
            with self.assertRaises(ValueError, msg=bad):
                self.load(bad)
        with self.assertRaisesRegex(ValueError, "duplicate id"):
            self.load(good, good)


class Metrics(unittest.TestCase):
    def test_graded_ranking(self):
        got = run.score_ranking(["x", "b", "a"], {"a": 2, "b": 1})
        dcg = 1 / math.log2(3) + 3 / math.log2(4)
        ideal = 3 / math.log2(2) + 1 / math.log2(3)
        self.assertEqual(got["r1"], 0.0)
        self.assertEqual(got["r10"], 1.0)
        self.assertEqual(got["mrr"], 0.5)
        self.assertAlmostEqual(got["ndcg10"], dcg / ideal, places=12)

    def test_perfect_and_empty(self):
        self.assertEqual(run.score_ranking(["a", "b"], {"a": 2, "b": 1}),
                         {"r1": 1.0, "r10": 1.0, "ndcg10": 1.0, "mrr": 1.0})
        self.assertEqual(run.score_ranking([], {"a": 2}), {"r1": 0.0, "r10": 0.0, "ndcg10": 0.0, "mrr": 0.0})

    def test_only_the_top_ten_count(self):
        ranking = [f"n{i}" for i in range(10)] + ["a"]
        self.assertEqual(run.score_ranking(ranking, {"a": 2})["r10"], 0.0)

    def test_abstention_costs_answerable_requests_and_counts_on_no_skill_ones(self):
        queries = [{"query": "1", "relevant": {"a": 2}}, {"query": "2", "relevant": {"b": 2}},
                   {"query": "3", "relevant": {}}, {"query": "4", "relevant": {}}]
        rankings = [["a"], ["b"], ["a"], []]
        got = run.evaluate(queries, rankings, [False, True, True, False])
        self.assertEqual(got["R@1"], 0.5)  # the abstained request's ranking is ignored
        self.assertEqual(got["lost_to_abstention"], 0.5)
        self.assertEqual(got["abstain_no_skill"], 0.5)


    def test_reachable_in_level_1_or_the_top_ten(self):
        queries = [{"query": "1", "relevant": {"a": 2}}, {"query": "2", "relevant": {"b": 1}},
                   {"query": "3", "relevant": {"c": 2}}, {"query": "4", "relevant": {}}]
        rankings = [["x"] * 10 + ["a"], ["b"], [], []]
        # a is past the top ten but listed; b is found; c is neither; the no-skill one is not counted.
        self.assertEqual(run.reachable(queries, rankings, {"a"}), 2 / 3)
        self.assertEqual(run.reachable(queries, rankings, set()), 1 / 3)


class Baseline(unittest.TestCase):
    def test_okapi_scores(self):
        bm25 = run.BM25(["Alpha beta", "beta gamma gamma", "delta"])
        ranked = bm25.rank("GAMMA", 10)
        self.assertEqual([i for i, _ in ranked], [1])
        # idf = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)); tf = 2; |d| = 3; avgdl = 2
        idf = math.log(1 + 2.5 / 1.5)
        norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 2)
        self.assertAlmostEqual(ranked[0][1], idf * 2 * 2.2 / (2 + norm), places=12)

    def test_ties_keep_catalog_order_and_nothing_matches_nothing(self):
        bm25 = run.BM25(["same words", "same words", "other"])
        self.assertEqual([i for i, _ in bm25.rank("same", 10)], [0, 1])
        self.assertEqual(bm25.rank("zzz", 10), [])

    def test_tokens_are_lowercase_ascii_alphanumerics(self):
        self.assertEqual(run.tokens("Café-au_lait v2.0!"), ["caf", "au", "lait", "v2", "0"])


def write_skill(root: Path, name: str, description: str, body: str = "") -> None:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")


@unittest.skipUnless(BIN, "set SKILLDECK_BIN to a skilldeck binary to run the bench end to end")
class EndToEnd(unittest.TestCase):
    def test_baseline_table_on_a_small_tree(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp, "tree")
            write_skill(tree, "pdf", "Merge and split PDF files")
            write_skill(tree, "weather", "Forecast for a city")
            queries = Path(tmp, "queries.jsonl")
            queries.write_text(
                json.dumps({"id": "a1", "query": "merge two pdf files", "relevant": {"pdf": 2}}) + "\n"
                + json.dumps({"id": "a2", "query": "rain tomorrow in Paris", "relevant": {"weather": 2}}) + "\n"
                + json.dumps({"id": "n1", "query": "hello there", "relevant": {}}) + "\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                run.main(["--tree", str(tree), "--bin", BIN, "--queries", str(queries),
                          "--baseline-only", "--json", str(Path(tmp, "numbers.json"))])
            # "rain tomorrow in Paris" shares no token with "Forecast for a city".
            self.assertIn("| BM25 name+description | 50.0% | 50.0% | 0.500 | 0.500 | 0.0% | 0.0% |", out.getvalue())
            numbers = json.loads(Path(tmp, "numbers.json").read_text())
            self.assertEqual((numbers["answerable"], numbers["no_skill"], numbers["skills"]), (2, 1, 2))

    def test_a_label_the_tree_does_not_expose_stops_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp, "tree")
            write_skill(tree, "pdf", "Merge PDF files")
            queries = Path(tmp, "queries.jsonl")
            queries.write_text(json.dumps({"id": "a1", "query": "q", "relevant": {"gone": 2}}) + "\n")
            with self.assertRaisesRegex(SystemExit, "not exposed by this tree"):
                run.main(["--tree", str(tree), "--bin", BIN, "--queries", str(queries), "--baseline-only"])


@unittest.skipUnless(TREE and BIN, "set SKILLDECK_EVAL_TREE (fetch_tree.sh) and SKILLDECK_BIN to check the labels")
class LabelsMatchTheTree(unittest.TestCase):
    def test_every_label_is_exposed_at_its_recorded_path(self):
        listed = subprocess.run([BIN, "list", "--json", "--root", TREE], capture_output=True, check=True)
        root = Path(TREE).resolve()
        where = {s["name"]: Path(s["location"]).resolve().relative_to(root).as_posix()
                 for s in json.loads(listed.stdout)["skills"]}
        for q in run.load_queries(HERE / "queries.jsonl"):
            for name, path in q.get("paths", {}).items():
                self.assertEqual(where.get(name), path, f"{q['id']}: {name}")


if __name__ == "__main__":
    unittest.main()
