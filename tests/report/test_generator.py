#!/usr/bin/python3
"""The report generator's rules, on a report the C helpers write (report_fixture.c).

    test_generator.py REPORT_FIXTURE

- the JSON: plots carry their series; a series copied from a table keeps only the filtered rows
  with the table's values; a value that is not a number is null; plots stay out of the markdown;
- the page: one inline PNG per plot, every paper figure of the CSV placed on its bar or point,
  with its source under the plot;
- failures are loud: a paper figure that fits no bar fails --strict, a plot without a caption
  is reported and fails the run, a broken CSV is refused with the line named.
"""
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reportcheck  # noqa: E402

reportcheck.require_matplotlib()
sys.path.insert(0, reportcheck.GENERATOR_DIR)
import papers  # noqa: E402
import report  # noqa: E402

FIXTURE = None
PAPERS = """# a comment line
plot,group,series,metric,value,reference,source
fixture.bars,w1,dev-a,time (s),2.5,Paper A,"Paper A, Table 9"
fixture.bars,w2,,erases,30,Paper B,"Paper B, §2: for the workload as a whole"
fixture.lines,40,store,records stored,35,Paper A,"Paper A, Fig. 3"
"""


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generate(directory, *args):
    """report.main's exit status, its output and the page it wrote."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = report.main([directory, *args])
    with open(os.path.join(directory, "index.html"), encoding="utf-8") as f:
        return rc, out.getvalue(), f.read()


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        subprocess.run([FIXTURE, self.dir], check=True)
        with open(os.path.join(self.dir, "fixture.json"), encoding="utf-8") as f:
            self.json = json.load(f)
        self.plots = {it["key"]: it for it in self.json["items"] if "plot" in it}
        self.papers = os.path.join(self.dir, "papers.csv")
        write(self.papers, PAPERS)

    def tearDown(self):
        self.tmp.cleanup()

    def test_json(self):
        self.assertEqual(set(self.plots), {"fixture.bars", "fixture.timeline", "fixture.lines",
                                           "fixture.heatmap", "fixture.gap"})
        bars = self.plots["fixture.bars"]
        self.assertEqual([s["name"] for s in bars["series"]], ["dev-a", "dev-b"])
        self.assertEqual(bars["series"][1]["columns"], ["workload", "time (s)", "erases"])
        self.assertEqual(bars["series"][1]["rows"], [["w0", 2.5, 1], ["w1", 4.0, 11],
                                                     ["w2", 5.5, 21]])
        self.assertEqual(bars["attrs"], {"log": "time (s)"})
        self.assertEqual(self.plots["fixture.gap"]["series"][0]["rows"][1], [2, None])
        events = [r[3] for r in self.plots["fixture.timeline"]["series"][0]["rows"] if r[3]]
        self.assertEqual(events, ["failure", "charged", "restore", "checkpoint"])
        heat = self.plots["fixture.heatmap"]
        self.assertEqual(heat["series"][0]["rows"][2], [2, 2, "log"])
        self.assertEqual(heat["caption"], "The hottest unit is in the data.")
        with open(os.path.join(self.dir, "fixture.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("## Workloads", md)
        self.assertNotIn("Bars from the table", md)

    def test_page(self):
        rc, out, page = generate(self.dir, "--papers", self.papers, "--strict")
        self.assertEqual(rc, 0, out)
        self.assertEqual(len(re.findall(r'<img src="data:image/png;base64,', page)), 5)
        for source in ("Paper A, Table 9", "Paper B, §2: for the workload as a whole",
                       "Paper A, Fig. 3"):
            self.assertIn(source, page)
        self.assertIn("dev-b is slower by one second", page)
        self.assertNotIn("<script", page)
        self.assertRegex(out, r"report: /.*index\.html")

    def test_unplaced_paper_figure(self):
        write(self.papers, PAPERS + 'fixture.bars,w9,dev-a,time (s),1,Paper A,"nowhere"\n')
        rc, out, page = generate(self.dir, "--papers", self.papers)
        self.assertEqual(rc, 0, out)
        self.assertIn("fixture.bars / w9 / dev-a / time (s)", page)
        rc, out, _ = generate(self.dir, "--papers", self.papers, "--strict")
        self.assertEqual(rc, 1)
        self.assertIn("not placed", out)

    def test_plot_without_caption(self):
        subprocess.run([FIXTURE, self.dir, "--no-caption"], check=True)
        rc, out, page = generate(self.dir, "--papers", self.papers)
        self.assertEqual(rc, 1)
        self.assertIn("fixture.gap", out)
        self.assertTrue("could not be drawn" in page, "no error in the page")

    def test_unknown_kind(self):
        path = os.path.join(self.dir, "fixture.json")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        write(path, text.replace('"plot": "heatmap"', '"plot": "pie"'))
        rc, out, page = generate(self.dir, "--papers", self.papers)
        self.assertEqual(rc, 1)
        self.assertTrue("unknown plot kind &#x27;pie&#x27;" in page, "no error in the page")


class PaperFile(unittest.TestCase):
    def load(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(text)
        try:
            return papers.load(f.name)
        finally:
            os.unlink(f.name)

    def test_rules(self):
        header = ",".join(papers.COLUMNS) + "\n"
        self.assertEqual(len(self.load(header + "k,g,s,m,1.5,R,src\n")), 1)
        with self.assertRaisesRegex(ValueError, "header"):
            self.load("plot,value\nk,1\n")
        with self.assertRaisesRegex(ValueError, "data row 2 has no source"):
            self.load(header + "k,g,s,m,1,R,src\nk,g,s,m,2,R,\n")
        with self.assertRaisesRegex(ValueError, "not a number"):
            self.load(header + "k,g,s,m,many,R,src\n")
        with self.assertRaisesRegex(ValueError, "fields"):
            self.load(header + "k,g,s,m,1\n")

    def test_repository_file(self):
        """bench/paper-figures.csv loads, and every figure has a reference and a source."""
        figures = papers.load(report.DEFAULT_PAPERS)
        self.assertGreater(len(figures), 20)
        for f in figures:
            self.assertTrue(f.reference and f.source, f.where())


if __name__ == "__main__":
    FIXTURE = sys.argv.pop(1)
    unittest.main(verbosity=1)
