# swat_gpu.Searcher: a database prepared once and searched many times; each search returns what
# align() (and the command) returns for the same queries and options.
import numpy as np
import pytest

import swat_gpu
from conftest import command_hits, write_fasta


def test_repeated_searches(tmp_path, proteins, dnas):
    q, t = proteins
    ta = write_fasta(tmp_path / "t.fa", t)
    with swat_gpu.Searcher(ta, device="cpu") as db:
        assert db.targets == [n for n, _ in t]
        assert db.alphabet == "protein"
        assert db.engine == "cpu" and db.device.startswith("CPU")
        for k in range(len(q)):
            batch = q[k:k + 3]
            qa = write_fasta(tmp_path / f"q{k}.fa", batch)
            expected = command_hits(qa, ta, "--device", "cpu", "--max-hits", "5")
            assert [h.to_dict() for h in db.search(batch, max_hits=5)] == expected
        assert (db.scores(q) == swat_gpu.scores(q, ta, device="cpu")).all()
    with pytest.raises(RuntimeError, match="this Searcher is closed"):
        db.search(q)


def test_dna_searcher_and_scheme(tmp_path, dnas):
    q, t = dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    db = swat_gpu.Searcher(t, device="cpu", match=1, mismatch=-2, gap_open=2, gap_extend=2)
    for strand in ("both", "plus", "minus"):
        args = [] if strand == "both" else ["--strand", strand]
        expected = command_hits(qa, ta, "--device", "cpu", "--match", "1", "--mismatch", "-2", "--gap-open", "2",
                                "--gap-extend", "2", "--max-hsps", "0", *args)
        hits = db.search(q, strand=strand, max_hsps=0)
        assert [h.to_dict() for h in hits] == expected
    scores = db.scores(q)
    assert scores.shape == (len(q), len(t)) and scores.dtype == np.int32
    db.close()


def test_engines_kept_and_released(proteins):
    q, t = proteins
    first = swat_gpu.align(q, t, device="cpu")
    assert swat_gpu.align(q, t, device="cpu") == first  # on the kept engine
    swat_gpu.release_engines()
    assert swat_gpu.align(q, t, device="cpu") == first  # on a new one


def test_searcher_from_threads(proteins):
    import threading
    q, t = proteins
    expected = [h.to_dict() for h in swat_gpu.align(q, t, device="cpu")]
    db = swat_gpu.Searcher(t, device="cpu")
    results = [None] * 4

    def work(k):
        results[k] = [h.to_dict() for h in db.search(q)]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    db.close()  # after every search
    assert results == [expected] * 4
