#pragma once
// The database of a search as the user names it: a FASTA file (plain or gzip) or a prepared
// database (`swat-gpu makedb`, db/format.hpp) named by its PREFIX or its PREFIX.swdb index; and
// makedb itself, which writes a prepared database from a FASTA file.

#include <cstdint>
#include <string>
#include <vector>

#include "common/sequence.hpp"
#include "db/reader.hpp"
#include "io/fasta.hpp"

namespace swat::pipeline {

//! How the database of a search was read (for --timing).
struct database_read {
  bool prepared = false;       //!< a prepared database (else FASTA)
  std::uint32_t volumes = 0;   //!< its volumes
  db::read_report report;      //!< mapping and checking them
};

//! Reads db: a prepared database when db::prepared_index_path finds one, else FASTA. An
//! --alphabet other than auto must be the prepared database's (else usage_error). how, when
//! given, says which it was.
sequence_set read_database(const std::string& db, io::alphabet_request alphabet, const io::warning_fn& warn,
                           unsigned max_threads, database_read* how = nullptr);

//! Hands a sequence set to the end of the process: kept, reachable from a global, never freed
//! (a command that ends right after saves freeing its records one by one; leak checkers see it
//! as reachable, not lost).
void leave_for_exit(sequence_set set);

//! True when db names the same regular file as path (e.g. one file searched against itself) and
//! would be read as FASTA (no prepared database of that name): its records can be copied from
//! path's instead of read again.
bool same_fasta_file(const std::string& path, const std::string& db);

//! Throws usage_error when the queries' alphabet is not the database's (targets.file names it;
//! prepared: a prepared database, whose alphabet was fixed by makedb).
void check_alphabets(const std::string& query_path, const sequence_set& queries, const sequence_set& targets,
                     bool prepared);

//! What the planner knows of db before it is read: residues, records and whether it is protein
//! (a prepared database's own counts and alphabet, else sampled from the FASTA file's first
//! 64 KiB: engine/plan.hpp's sample_sequences; residues from the file's size for gzip). Zeros: unknown.
struct database_hint {
  std::uint64_t residues = 0, records = 0;
  bool protein = false;
  bool residues_sampled = false;  //!< the alphabet is known (a prepared database, or letters sampled)
};
database_hint database_size_hint(const std::string& db);

//! The files a search reads for db (outputs must not replace them): the FASTA file, or a prepared
//! database's index and the volumes it lists.
std::vector<std::string> database_files(const std::string& db);

//! `swat-gpu makedb FASTA PREFIX`.
struct makedb_options {
  std::string fasta_path;  //!< FASTA or FASTA.gz ("-": standard input)
  std::string prefix;      //!< writes PREFIX.swdb and PREFIX.<generation>.NNN.swdbv beside it
  io::alphabet_request alphabet = io::alphabet_request::auto_detect;
  std::uint64_t max_volume_bytes = 0;  //!< bound of a volume file (0: db::default_volume_bytes)
  unsigned threads = 0;                //!< reader threads (0: the hardware's)
  //! The process ends right after (the command line): the records read are left to it instead
  //! of being freed one by one (1.6 M of them for Swiss-Prot ×500: 0.5 s on the 2-core VM).
  bool process_ends_after = false;
};

//! What makedb wrote.
struct makedb_result {
  std::string index_path;
  alphabet_kind alphabet = alphabet_kind::dna;
  std::uint64_t sequences = 0, residues = 0, bytes = 0;
  std::uint32_t volumes = 0;
  double read_s = 0, write_s = 0;
};

//! Reads the FASTA file and writes its prepared database atomically: the volumes under fresh
//! names (where nothing is), the index last (renamed over an older database's index, whose
//! volumes are removed after it: those named PREFIX.* whose headers are the ones it lists and
//! that no other index beside it lists); any failure, and SIGINT/SIGTERM/SIGHUP before the
//! index is renamed, removes what this run wrote and leaves an older database as it was. Stale
//! volumes of PREFIX that no index lists (a killed run's, swat-gpu volume headers only) are
//! removed too, unless another makedb runs in that directory (flock). Refuses (usage_error) a
//! PREFIX.swdb that is a symbolic link or anything but a swat-gpu index (never opened in a way
//! that blocks), and an empty FASTA file (input_error). warn receives the reader's warnings.
makedb_result make_database(const makedb_options& options, const io::warning_fn& warn);

}  // namespace swat::pipeline
