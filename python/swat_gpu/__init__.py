"""swat_gpu: exact Smith-Waterman alignments (Gotoh affine gaps) from Python.

The same library, engines and results as the command ``swat-gpu align``: every hit is what its
``--outfmt json`` output holds (docs/output.md), the GPU engines where this build has them and a
GPU is usable, else the CPU engine.

    >>> import swat_gpu
    >>> hits = swat_gpu.align("MKVLAAGIVALLLAAGCSS", [("p1", "MKVLAAGLVALLAAGCS"), ("p2", "MSTNPKPQ")])
    >>> hits[0].target, hits[0].score, hits[0].cigar
    ('p1', 65, '7=1X2=1I7=')

align() aligns queries against targets and returns their best hits; scores() returns only the
best score of every pair as a NumPy array (for screening); Searcher prepares a database once
and searches it many times (the session ``swat-gpu serve`` keeps).

Sequences (queries, targets, db) are given as
  - a FASTA file: an ``os.PathLike`` such as ``pathlib.Path("db.fa")`` (plain or gzip-compressed);
  - one sequence: a ``str`` (always a sequence, never a path), named ``query_1`` / ``target_1``;
  - several: a list (any iterable) of ``str`` (named ``query_1``, ``query_2``, … or
    ``target_1``, …), of ``(name, sequence)`` pairs, or of Biopython ``SeqRecord``s (named by
    their ``id``), mixed freely.
Sequences are checked as the command checks FASTA files (in the errors, "queries" or "targets"
stand for the file name and the line is that of the FASTA text made from them, one header line
and one sequence line per record); a record without residues is skipped with a warning.

Errors: ``ValueError`` with the command's one-line message for bad arguments or sequences,
``RuntimeError`` for failures while running. The GIL is released while aligning, and Ctrl-C
(KeyboardInterrupt) stops a long alignment. Notices of the engine (e.g. "no GPU; aligning on the
CPU") go to the logger ``swat_gpu``, warnings about the input to ``warnings``.
"""

import logging
import os
import warnings

from . import _core

__all__ = ["Hit", "Searcher", "align", "scores", "gpu_count", "release_engines", "__version__"]
__version__ = _core.version

_log = logging.getLogger("swat_gpu")


def gpu_count():
    """GPU devices this build can use now (0 without a CUDA build, a driver or a device)."""
    return _core.gpu_count()


def release_engines():
    """Drops the engines align() and scores() keep between calls (a GPU engine holds its device
    memory until then, or until the process ends); the next call starts a new one."""
    _core.release_engines()


def _report(lines):
    # The lines the command prints on stderr: warnings about the input, notices of the engine.
    for line in lines:
        if line.startswith("warning: "):
            warnings.warn(line[len("warning: "):], stacklevel=3)
        else:
            _log.info(line[len("notice: "):] if line.startswith("notice: ") else line)


class Hit:
    """One reported alignment: an attribute for each key of a hit of ``swat-gpu align --outfmt json``
    (docs/output.md), with the same value.

    query, target        names (FASTA: the header's first word)
    score                raw Smith-Waterman score
    query_start, query_end, target_start, target_end
                         1-based inclusive coordinates as BLAST reports them (query forward;
                         on the minus strand target_start > target_end)
    strand               "plus" | "minus" for DNA; None for protein (the JSON has no key)
    query_length, target_length, length
                         residues of the sequences, columns of the alignment
    identity             percent identical columns, 3 decimals
    matches, mismatches, positives, gap_opens, gaps
    cigar                extended CIGAR (=, X, I, D) in the orientation of the aligned rows
    evalue, bitscore     full doubles; None in a search without statistics
    log10_evalue         log10 of the E-value where it is below 2.2e-308 (computed in log
                         space), else None (the JSON has no key)
    query_aligned, target_aligned
                         the aligned rows with '-' for gaps (BLAST's qseq, sseq)

    to_dict() gives the JSON object: the same keys (strand only for DNA, log10_evalue only where
    the JSON has it) and values.
    """

    FIELDS = ("query", "target", "score", "query_start", "query_end", "target_start", "target_end", "strand",
              "query_length", "target_length", "length", "identity", "matches", "mismatches", "positives",
              "gap_opens", "gaps", "cigar", "evalue", "log10_evalue", "bitscore", "query_aligned",
              "target_aligned")
    __slots__ = FIELDS + ("_has_log10_evalue",)

    def __init__(self, *values):
        for name, value in zip(Hit.__slots__, values):
            setattr(self, name, value)

    def to_dict(self):
        """The hit as its JSON object (a dict with the same keys, in the same order)."""
        d = {}
        for name in Hit.FIELDS:
            if name == "strand" and self.strand is None:
                continue
            if name == "log10_evalue" and not self._has_log10_evalue:
                continue
            d[name] = getattr(self, name)
        return d

    def __eq__(self, other):
        if not isinstance(other, Hit):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return (f"Hit(query={self.query!r}, target={self.target!r}, score={self.score}, evalue={self.evalue!r}, "
                f"query={self.query_start}-{self.query_end}, target={self.target_start}-{self.target_end}, "
                f"cigar={self.cigar!r})")


def _records(items, label, prefix):
    # (name, sequence) pairs of the sequences in items, checked for what FASTA text cannot carry.
    if isinstance(items, str):
        items = [items]
    elif isinstance(items, (bytes, bytearray)):
        raise TypeError(f"{label}: give sequences as str (or a path as pathlib.Path), not bytes")
    records = []
    try:
        iterator = iter(items)
    except TypeError:
        raise TypeError(f"{label}: expected a path (os.PathLike), a str, or a list of str, (name, sequence) "
                        f"pairs or SeqRecords, not {type(items).__name__}") from None
    for k, item in enumerate(iterator, 1):
        if isinstance(item, str):
            name, seq = f"{prefix}_{k}", item
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            name, seq = item
        elif hasattr(item, "id") and hasattr(item, "seq"):  # Biopython SeqRecord
            name, seq = item.id, item.seq
        else:
            raise TypeError(f"{label}: item {k} is a {type(item).__name__}; expected a str, a (name, sequence) "
                            f"pair or a SeqRecord")
        if not isinstance(name, str):
            raise TypeError(f"{label}: the name of record {k} is a {type(name).__name__}, not a str")
        if not isinstance(seq, str):
            if hasattr(seq, "__str__") and type(seq).__name__ in ("Seq", "MutableSeq"):
                seq = str(seq)
            else:
                raise TypeError(f"{label}: the sequence of record {k} ({name}) is a {type(seq).__name__}, not a str")
        if not name or any(c.isspace() for c in name):
            raise ValueError(f"{label}:record {k} ({name}): a name must be one word (no whitespace, not empty)")
        for bad in (">", ";"):
            at = seq.find(bad)
            if at >= 0:
                raise ValueError(f"{label}:record {k} ({name}):{at + 1}: '{bad}' in sequence: not a residue")
        records.append((name, seq))
    return records


def _source(items, label, prefix):
    # What the C++ half reads: a FASTA file by its path, or FASTA text made from the sequences.
    if isinstance(items, os.PathLike):
        return ("path", os.fspath(items))
    records = _records(items, label, prefix)
    return ("text", label, "".join(f">{name}\n{seq}\n" for name, seq in records))


def _session_args(alphabet, matrix, matrix_file, match, mismatch, gap_open, gap_extend, device, gpus, threads):
    a = _core.SessionArgs()
    a.alphabet = alphabet
    a.matrix = matrix
    a.matrix_file = os.fspath(matrix_file) if matrix_file is not None else None
    a.match, a.mismatch, a.gap_open, a.gap_extend = match, mismatch, gap_open, gap_extend
    a.device = device
    a.gpus = None if gpus is None else (",".join(str(g) for g in gpus) if isinstance(gpus, (list, tuple)) else str(gpus))
    a.threads = threads
    return a


def _search_args(strand, max_hits=10, max_hsps=1, evalue=10.0, min_score=1, stats="auto"):
    a = _core.SearchArgs()
    # strand="both" is every strand there is: protein searches take it too (the command refuses
    # --strand for protein; here only "plus" and "minus" are refused for protein).
    a.strand = strand
    a.strand_given = strand != "both"
    a.max_hits, a.max_hsps = max_hits, max_hsps
    a.evalue = float(evalue)
    a.evalue_given = float(evalue) != 10.0
    a.min_score, a.stats = min_score, stats
    return a


def _hits(tuples):
    return [Hit(*t) for t in tuples]


def align(queries, targets, *, alphabet="auto", matrix=None, match=None, mismatch=None, gap_open=None,
          gap_extend=None, device="auto", gpus=None, max_hits=10, max_hsps=1, evalue=10.0, strand="both",
          min_score=1, stats="auto", matrix_file=None, threads=0):
    """Aligns every query against every target; returns the reported hits as a list of Hit, in the
    order of ``swat-gpu align QUERIES TARGETS --outfmt json`` (per query in query order, best
    score first, then target order).

    queries, targets  a FASTA file (os.PathLike, .gz too), a str (one sequence), or a list of str,
                      (name, sequence) pairs or Biopython SeqRecords (see help(swat_gpu))
    alphabet          "auto" | "dna" | "protein"; auto: DNA if all residues are IUPAC nucleotides
                      and >= 90% ACGTUN, else protein
    matrix            protein matrix: BLOSUM45|BLOSUM50|BLOSUM62|BLOSUM80|BLOSUM90|PAM30|PAM70|
                      PAM250 (default BLOSUM62)
    matrix_file       a protein matrix in NCBI/BLAST text format (a path), instead of matrix
    match, mismatch   DNA scores (defaults 2, -3)
    gap_open, gap_extend
                      gap penalties (>= 0): a gap of length k costs gap_open + k * gap_extend
                      (defaults DNA 5, 2; protein 11, 1)
    device            "auto" (a GPU when one is usable, else the CPU engine) | "cpu" | "gpu" |
                      "gpu:ID"
    gpus              GPUs of database searches: "all", a count N (the first N) or a list of ids
    max_hits          hits (targets) reported per query (>= 1)
    max_hsps          alignments reported per query-target pair: the best ones that share no
                      aligned residue pair (Waterman-Eggert); 0 = all
    evalue            largest E-value reported (> 0; BLAST's default 10); any other value is an
                      error in a search without E-values (as the command's --evalue)
    strand            DNA strands of the queries searched: "both" | "plus" | "minus" ("both" for
                      protein, which has one)
    min_score         smallest score reported
    stats             E-values: "auto" | "analytic" | "empirical" | "none" (the command's --stats)
    threads           CPU threads (0 = all cores)

    Raises ValueError (bad arguments or sequences, with the command's message) or RuntimeError.
    Engines are kept between calls (release_engines() drops them).
    """
    return _hits(_core.align(_source(queries, "queries", "query"), _source(targets, "targets", "target"),
                             _session_args(alphabet, matrix, matrix_file, match, mismatch, gap_open, gap_extend,
                                           device, gpus, threads),
                             _search_args(strand, max_hits, max_hsps, evalue, min_score, stats)))


def scores(queries, targets, *, alphabet="auto", matrix=None, match=None, mismatch=None, gap_open=None,
           gap_extend=None, device="auto", gpus=None, strand="both", matrix_file=None, threads=0):
    """The best local alignment score of every query against every target, without alignments:
    a NumPy int32 array of shape (queries, targets), rows and columns in input order (records
    without residues are skipped, with a warning). For DNA searched on both strands each entry
    is the better strand's score (the score align() reports for the pair); 0 where nothing
    scores.

    The arguments are align()'s (queries, targets, alphabet, matrix, matrix_file, match,
    mismatch, gap_open, gap_extend, device, gpus, strand, threads).
    """
    return _core.scores(_source(queries, "queries", "query"), _source(targets, "targets", "target"),
                        _session_args(alphabet, matrix, matrix_file, match, mismatch, gap_open, gap_extend,
                                      device, gpus, threads),
                        _search_args(strand))


class Searcher:
    """A database prepared once and searched many times: the session ``swat-gpu serve`` keeps
    (its targets read, its scoring scheme built, its engine started and, for a GPU database
    engine, the targets packed on the GPU). Each search returns what align(queries, db, ...)
    returns with the same options.

    Searcher(db, *, alphabet="auto", matrix=None, match=None, mismatch=None, gap_open=None,
             gap_extend=None, device="auto", gpus=None, matrix_file=None, threads=0)
        db and the options as for align(); the scoring scheme and the engine are the Searcher's.

    search(queries, *, max_hits=10, max_hsps=1, evalue=10.0, strand="both", min_score=1, stats="auto")
        the hits, as align() returns them
    scores(queries, *, strand="both")
        the best scores, as scores() returns them
    targets, alphabet, engine, device
        the database's names, its alphabet, the engine and where it runs
    close() (or a with block) releases the engine; searches run one at a time (threads queue).
    """

    def __init__(self, db, *, alphabet="auto", matrix=None, match=None, mismatch=None, gap_open=None,
                 gap_extend=None, device="auto", gpus=None, matrix_file=None, threads=0):
        self._core = _core.Searcher(_source(db, "targets", "target"),
                                    _session_args(alphabet, matrix, matrix_file, match, mismatch, gap_open,
                                                  gap_extend, device, gpus, threads))

    def search(self, queries, *, max_hits=10, max_hsps=1, evalue=10.0, strand="both", min_score=1, stats="auto"):
        """The hits of queries against the database, as align(queries, db, ...) returns them."""
        return _hits(self._core.search(_source(queries, "queries", "query"),
                                       _search_args(strand, max_hits, max_hsps, evalue, min_score, stats)))

    def scores(self, queries, *, strand="both"):
        """The best score of every query against every database sequence, as scores() returns it."""
        return self._core.scores(_source(queries, "queries", "query"), _search_args(strand))

    @property
    def targets(self):
        """The names of the database's sequences (those with residues), in order."""
        return self._core.target_names

    @property
    def alphabet(self):
        """"dna" or "protein"."""
        return self._core.alphabet

    @property
    def engine(self):
        """The engine's name ("cpu", "gpu-db", …)."""
        return self._core.engine

    @property
    def device(self):
        """Where the engine runs, e.g. "CPU (16 threads)"."""
        return self._core.device

    def close(self):
        """Releases the engine and the database; the Searcher cannot search afterwards."""
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
