# Errors: ValueError with the command's one-line message for bad arguments and sequences,
# RuntimeError for failures while running, TypeError for arguments of the wrong type.
import pathlib

import pytest

import swat_gpu
from conftest import command_error, write_fasta


@pytest.fixture
def files(tmp_path, proteins):
    q, t = proteins
    return write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)


def same_error(files, options, *args):
    qa, ta = files
    message = command_error(qa, ta, "--device", "cpu", *args)
    with pytest.raises(ValueError) as e:
        swat_gpu.align(qa, ta, device="cpu", **options)
    assert str(e.value) == message
    return message


def test_option_errors_are_the_commands(files):
    assert "BLOSUM99" in same_error(files, {"matrix": "BLOSUM99"}, "--matrix", "BLOSUM99")
    same_error(files, {"gap_open": -1}, "--gap-open", "-1")
    same_error(files, {"match": 2}, "--match", "2")
    same_error(files, {"max_hits": 0}, "--max-hits", "0")
    same_error(files, {"strand": "plus"}, "--strand", "plus")
    same_error(files, {"alphabet": "rna"}, "--alphabet", "rna")
    same_error(files, {"stats": "sometimes"}, "--stats", "sometimes")
    same_error(files, {"alphabet": "dna"}, "--alphabet", "dna")  # protein letters read as DNA
    same_error(files, {"matrix_file": pathlib.Path("/nonexistent/matrix")}, "--matrix-file", "/nonexistent/matrix")
    with pytest.raises(ValueError, match="^--evalue must be a positive number"):
        swat_gpu.align(*files, evalue=0)
    with pytest.raises(ValueError, match="^unknown --strand 'up'"):
        swat_gpu.align("ACGT", "ACGT", strand="up")


def test_input_errors_are_the_commands(tmp_path, files):
    qa, ta = files
    bad = tmp_path / "bad.fa"
    bad.write_text(">ok\nMKVLA\n>b1 x\nMKV1LA\n")
    message = command_error(bad, ta)
    assert message.startswith(f"{bad}:record 2 (b1):4: digit '1'")
    with pytest.raises(ValueError) as e:
        swat_gpu.align(bad, ta)
    assert str(e.value) == message
    with pytest.raises(ValueError) as e:
        swat_gpu.align(tmp_path / "missing.fa", ta)
    assert str(e.value) == command_error(tmp_path / "missing.fa", ta)
    # Sequences from memory: the same messages, "queries"/"targets" in the place of the file.
    with pytest.raises(ValueError, match=r"^queries:record 2 \(b1\):4: digit '1' in sequence"):
        swat_gpu.align([("ok", "MKVLA"), ("b1", "MKV1LA")], ta)
    with pytest.raises(ValueError, match=r"^targets:record 1 \(target_1\):3: '>' in sequence"):
        swat_gpu.align("MKV", "MK>V")
    with pytest.raises(ValueError, match=r"^queries:record 1 \(a b\): a name must be one word"):
        swat_gpu.align([("a b", "MKV")], "MKV")
    with pytest.raises(ValueError, match="^queries: the only record has no residues"):
        swat_gpu.align("", "MKV")
    with pytest.raises(ValueError, match="^queries reads as dna but targets as protein"):
        swat_gpu.align("ACGTACGT", "MKVLWQ")


def test_type_errors():
    with pytest.raises(TypeError, match="queries: give sequences as str"):
        swat_gpu.align(b"ACGT", "ACGT")
    with pytest.raises(TypeError, match="targets: expected a path"):
        swat_gpu.align("ACGT", 42)
    with pytest.raises(TypeError, match="queries: item 2 is a int"):
        swat_gpu.align(["ACGT", 7], "ACGT")


def test_searcher_errors(files):
    db = swat_gpu.Searcher(files[1], device="cpu")
    with pytest.raises(ValueError, match="^--evalue must be a positive number"):
        db.search("MKV", evalue=-1)
    with pytest.raises(ValueError, match="^--max-hits must be at least 1"):
        db.search("MKV", max_hits=0)
    with pytest.raises(ValueError, match=f"^queries reads as dna but {files[1]} as protein"):
        db.scores("ACGTACGTAC")
    assert db.search("MKV") is not None  # usable after the errors


def test_runtime_error_is_distinct(files):
    db = swat_gpu.Searcher(files[1], device="cpu")
    db.close()
    with pytest.raises(RuntimeError, match="this Searcher is closed") as e:
        db.scores("MKV")
    assert not isinstance(e.value, ValueError)
