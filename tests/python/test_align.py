# swat_gpu.align() against `swat-gpu align --outfmt json`: the same hits, field for field, for
# protein and DNA (both strands), every input form and the scoring and report options.
import pathlib

import pytest
from Bio.Seq import Seq
from Bio.SeqRecord import SeqRecord

import swat_gpu
from conftest import ROOT, command_hits, write_fasta


def dicts(hits):
    return [h.to_dict() for h in hits]


def test_hit_attributes_are_the_json_keys(tmp_path, proteins):
    q, t = proteins
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    expected = command_hits(qa, ta, "--device", "cpu")
    hits = swat_gpu.align(qa, ta, device="cpu")
    assert len(expected) > 8
    assert len(hits) == len(expected)
    for hit, want in zip(hits, expected):
        for key, value in want.items():
            assert getattr(hit, key) == value, key
            assert type(getattr(hit, key)) is type(value), key
        assert hit.strand is None  # protein: the JSON has no strand
        assert list(hit.to_dict()) == list(want)  # the same keys in the same order


@pytest.mark.parametrize("compress", [False, True])
def test_protein_files(tmp_path, proteins, compress):
    q, t = proteins
    suffix = ".fa.gz" if compress else ".fa"
    qa, ta = write_fasta(tmp_path / ("q" + suffix), q, compress), write_fasta(tmp_path / ("t" + suffix), t, compress)
    assert dicts(swat_gpu.align(qa, ta, device="cpu")) == command_hits(qa, ta, "--device", "cpu")


def test_dna_both_strands(tmp_path, dnas):
    q, t = dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    expected = command_hits(qa, ta, "--device", "cpu")
    assert {h["strand"] for h in expected} == {"plus", "minus"}
    assert dicts(swat_gpu.align(qa, ta, device="cpu")) == expected
    for strand in ("plus", "minus"):
        assert dicts(swat_gpu.align(qa, ta, device="cpu", strand=strand)) == \
            command_hits(qa, ta, "--device", "cpu", "--strand", strand)


def test_real_data_files():
    q, t = ROOT / "data" / "coronavirus_regions.fa", ROOT / "data" / "sarscov2_spike_gene.fa"
    assert dicts(swat_gpu.align(q, t, device="cpu")) == command_hits(q, t, "--device", "cpu")
    q, t = ROOT / "data" / "spike_sarscov2_QHU36824.fa", ROOT / "data" / "spike_proteins.fa"
    assert dicts(swat_gpu.align(q, t, device="cpu", max_hsps=0)) == \
        command_hits(q, t, "--device", "cpu", "--max-hsps", "0")


def test_in_memory_forms(tmp_path, proteins):
    q, t = proteins
    ta = write_fasta(tmp_path / "t.fa", t)
    # One str: named query_1.
    one = q[0][1]
    write_fasta(tmp_path / "one.fa", [("query_1", one)])
    assert dicts(swat_gpu.align(one, ta, device="cpu")) == command_hits(tmp_path / "one.fa", ta, "--device", "cpu")
    # A list of str: query_1, query_2, …; targets as a list of str: target_1, …
    seqs = [s for _, s in q]
    qn = write_fasta(tmp_path / "qn.fa", [(f"query_{k}", s) for k, s in enumerate(seqs, 1)])
    tn = write_fasta(tmp_path / "tn.fa", [(f"target_{k}", s) for k, s in enumerate([s for _, s in t], 1)])
    expected = command_hits(qn, tn, "--device", "cpu")
    assert dicts(swat_gpu.align(seqs, [s for _, s in t], device="cpu")) == expected
    # (name, sequence) pairs, SeqRecords and a generator of them.
    qa = write_fasta(tmp_path / "q.fa", q)
    expected = command_hits(qa, ta, "--device", "cpu")
    assert dicts(swat_gpu.align(q, t, device="cpu")) == expected
    records = [SeqRecord(Seq(s), id=n, description="a record") for n, s in q]
    assert dicts(swat_gpu.align(records, (r for r in t), device="cpu")) == expected
    # A path given as a pathlib.Path is a file; the same text given as a str is a sequence.
    assert dicts(swat_gpu.align(pathlib.Path(qa), t, device="cpu")) == expected


def test_lower_case_and_skipped_records(tmp_path, proteins):
    q, t = proteins
    lower = [(n, s.lower()) for n, s in q]
    with pytest.warns(UserWarning, match="targets:record 2 \\(empty\\): record has no residues, skipped"):
        hits = swat_gpu.align(lower, [t[0], ("empty", ""), *t[1:]], device="cpu")
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    assert dicts(hits) == command_hits(qa, ta, "--device", "cpu")


@pytest.mark.parametrize("options", [
    {"matrix": "PAM30"},
    {"matrix": "BLOSUM45", "gap_open": 14, "gap_extend": 2},
    {"gap_open": 9, "gap_extend": 2, "max_hits": 3},
    {"max_hsps": 0, "evalue": 1e-3},
    {"max_hsps": 2, "min_score": 30, "stats": "none"},
    {"evalue": 0.5, "alphabet": "protein"},
    {"matrix_file": ROOT / "data" / "matrices" / "BLOSUM62_classic"},
])
def test_protein_options(tmp_path, proteins, options):
    q, t = proteins
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    args = []
    for key, value in options.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    assert dicts(swat_gpu.align(q, t, device="cpu", **options)) == command_hits(qa, ta, "--device", "cpu", *args)


@pytest.mark.parametrize("options", [
    {"match": 1, "mismatch": -2},
    {"match": 3, "mismatch": -4, "gap_open": 6, "gap_extend": 3, "strand": "minus"},
    {"max_hsps": 0, "max_hits": 4},
    {"alphabet": "dna", "evalue": 1e-6},
])
def test_dna_options(tmp_path, dnas, options):
    q, t = dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    args = []
    for key, value in options.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    assert dicts(swat_gpu.align(q, t, device="cpu", **options)) == command_hits(qa, ta, "--device", "cpu", *args)


def test_help_documents_every_argument():
    import inspect
    for fn in (swat_gpu.align, swat_gpu.scores):
        doc = fn.__doc__
        for name in inspect.signature(fn).parameters:
            assert name in doc, (fn.__name__, name)
    for name in inspect.signature(swat_gpu.Searcher).parameters:
        assert name in swat_gpu.Searcher.__doc__
    for name in list(inspect.signature(swat_gpu.Searcher.search).parameters)[1:]:
        assert name in swat_gpu.Searcher.__doc__


def test_prepared_database(tmp_path, proteins):
    # A database prepared by `swat-gpu makedb`, named by its prefix, as align takes it.
    import subprocess
    from conftest import BINARY
    q, t = proteins
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    subprocess.run([str(BINARY), "makedb", str(ta), str(tmp_path / "db")], check=True, capture_output=True)
    expected = command_hits(qa, tmp_path / "db", "--device", "cpu")
    assert expected == command_hits(qa, ta, "--device", "cpu")
    assert dicts(swat_gpu.align(q, tmp_path / "db", device="cpu")) == expected
    with swat_gpu.Searcher(tmp_path / "db", device="cpu") as db:
        assert dicts(db.search(q)) == expected
