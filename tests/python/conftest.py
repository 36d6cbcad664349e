# Fixtures of the Python package's tests: the command to compare with (SWAT_BINARY, else
# build/bin/swat-gpu of this checkout), seeded sequences and FASTA files of them.
import gzip
import json
import os
import pathlib
import random
import subprocess

import pytest

import swat_gpu  # noqa: F401  (the package scripts/setup installs: its absence fails every test)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("SWAT_BINARY", ROOT / "build" / "bin" / "swat-gpu"))

AMINO = "ACDEFGHIKLMNPQRSTVWY"


def command_hits(*args):
    """The hits of `swat-gpu align ARGS --outfmt json --quiet` (a list of dicts)."""
    out = subprocess.run([str(BINARY), "align", *map(str, args), "--outfmt", "json", "--quiet"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["hits"]


def command_error(*args):
    """The one-line error of a failing `swat-gpu align ARGS` (without the 'swat-gpu: error: ' prefix)."""
    out = subprocess.run([str(BINARY), "align", *map(str, args), "--quiet"], capture_output=True, text=True)
    assert out.returncode == 2, (out.returncode, out.stderr)
    line = out.stderr.strip().splitlines()[-1]
    assert line.startswith("swat-gpu: error: "), line
    return line[len("swat-gpu: error: "):]


def mutate(rng, seq, alphabet, rate=0.15):
    out = []
    for c in seq:
        r = rng.random()
        if r < rate * 0.7:
            out.append(rng.choice(alphabet))
        elif r < rate * 0.85:
            continue
        elif r < rate:
            out.append(c + rng.choice(alphabet))
        else:
            out.append(c)
    return "".join(out)


def revcomp(seq):
    return seq.translate(str.maketrans("ACGT", "TGCA"))[::-1]


@pytest.fixture(scope="session")
def proteins():
    """(queries, targets): (name, sequence) pairs, targets related to some queries."""
    rng = random.Random(30)
    families = ["".join(rng.choice(AMINO) for _ in range(rng.randint(60, 220))) for _ in range(6)]
    queries = [(f"q{k}", mutate(rng, families[k % 6], AMINO, 0.1)) for k in range(8)]
    targets = [(f"t{k}", mutate(rng, families[k % 6], AMINO, 0.3) if k % 3 else
                "".join(rng.choice(AMINO) for _ in range(rng.randint(40, 300)))) for k in range(30)]
    return queries, targets


@pytest.fixture(scope="session")
def dnas():
    """(queries, targets): DNA pairs with hits on both strands."""
    rng = random.Random(31)
    genes = ["".join(rng.choice("ACGT") for _ in range(rng.randint(150, 400))) for _ in range(4)]
    queries = [(f"dq{k}", mutate(rng, genes[k % 4], "ACGT", 0.08)) for k in range(6)]
    targets = []
    for k in range(20):
        flank = "".join(rng.choice("ACGT") for _ in range(rng.randint(20, 200)))
        gene = mutate(rng, genes[k % 4], "ACGT", 0.15)
        targets.append((f"dt{k}", flank + (revcomp(gene) if k % 2 else gene) + flank[::-1]))
    return queries, targets


def write_fasta(path, records, compress=False):
    text = "".join(f">{name} some description\n{seq[:60]}\n{seq[60:]}\n" if len(seq) > 60 else f">{name}\n{seq}\n"
                   for name, seq in records)
    if compress:
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        pathlib.Path(path).write_text(text)
    return pathlib.Path(path)
