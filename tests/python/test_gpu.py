# The GPU engines through the package: the same hits and scores as the command on the GPU (and
# as the CPU engine). Skips where this build or machine has no usable GPU.
import pytest

import swat_gpu
from conftest import command_hits, write_fasta

pytestmark = pytest.mark.skipif(swat_gpu.gpu_count() == 0, reason="no usable GPU (or a build without CUDA)")


@pytest.mark.parametrize("kind", ["protein", "dna"])
def test_gpu_equals_the_command(tmp_path, proteins, dnas, kind):
    q, t = proteins if kind == "protein" else dnas
    qa, ta = write_fasta(tmp_path / "q.fa", q), write_fasta(tmp_path / "t.fa", t)
    expected = command_hits(qa, ta, "--device", "gpu")
    hits = [h.to_dict() for h in swat_gpu.align(qa, ta, device="gpu")]
    assert hits == expected
    cpu = [h.to_dict() for h in swat_gpu.align(qa, ta, device="cpu")]
    assert [(h["query"], h["target"], h["score"], h["cigar"]) for h in hits] == \
        [(h["query"], h["target"], h["score"], h["cigar"]) for h in cpu]
    assert (swat_gpu.scores(q, t, device="gpu") == swat_gpu.scores(q, t, device="cpu")).all()
    with swat_gpu.Searcher(ta, device="gpu") as db:
        assert db.device.startswith("GPU")
        for _ in range(2):
            assert [h.to_dict() for h in db.search(qa)] == expected
