# swat_gpu.scores(): the best score of every pair, equal to the score the command reports for it
# (every pair reported: --stats none, --max-hits above the targets), 0 where nothing scores.
import numpy as np
import pytest

import swat_gpu
from conftest import command_hits, write_fasta


def command_scores(qa, ta, queries, targets, *args):
    expected = np.zeros((len(queries), len(targets)), dtype=np.int32)
    qi = {n: k for k, (n, _) in enumerate(queries)}
    ti = {n: k for k, (n, _) in enumerate(targets)}
    for h in command_hits(qa, ta, "--device", "cpu", "--stats", "none", "--max-hits", len(targets), *args):
        expected[qi[h["query"]], ti[h["target"]]] = h["score"]
    return expected


@pytest.mark.parametrize("kind", ["protein", "dna"])
def test_scores_are_the_commands_best_scores(tmp_path, proteins, dnas, kind):
    q, t = proteins if kind == "protein" else dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    got = swat_gpu.scores(qa, ta, device="cpu")
    assert got.dtype == np.int32 and got.shape == (len(q), len(t))
    expected = command_scores(qa, ta, q, t)
    assert (got == expected).all()
    assert (got > 0).sum() > len(q)  # not all zero
    assert (swat_gpu.scores(q, t, device="cpu") == expected).all()


def test_scores_per_strand_and_scheme(tmp_path, dnas):
    q, t = dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    for strand in ("plus", "minus"):
        got = swat_gpu.scores(q, t, device="cpu", strand=strand, match=1, mismatch=-1)
        expected = command_scores(qa, ta, q, t, "--strand", strand, "--match", "1", "--mismatch", "-1")
        assert (got == expected).all(), strand
    both = swat_gpu.scores(q, t, device="cpu", match=1, mismatch=-1)
    plus = swat_gpu.scores(q, t, device="cpu", match=1, mismatch=-1, strand="plus")
    minus = swat_gpu.scores(q, t, device="cpu", match=1, mismatch=-1, strand="minus")
    assert (both == np.maximum(plus, minus)).all()
