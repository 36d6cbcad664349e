#pragma once
// `swat-gpu align`: read inputs, build the scoring scheme, choose an engine, align every
// query against every target, keep the best hits per query and write them atomically.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/scoring_scheme.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "io/fasta.hpp"
#include "output/output.hpp"
#include "pipeline/database.hpp"
#include "pipeline/search_stats.hpp"

namespace swat::pipeline {

//! Which DNA strands of the queries are searched (--strand).
enum class strand_choice { both, plus, minus };
//! "both" | "plus" | "minus"; throws usage_error otherwise.
strand_choice parse_strand_choice(std::string_view text);

//! Scoring options as given on the command line (unset = alphabet default).
struct scoring_options {
  std::optional<int> match;
  std::optional<int> mismatch;
  std::optional<int> gap_open;
  std::optional<int> gap_extend;
  std::string matrix;       //!< protein matrix name (default BLOSUM62)
  std::string matrix_file;  //!< NCBI-format matrix file (overrides matrix)
};

//! The scheme for an alphabet: DNA 2/-3/5/2, protein BLOSUM62 11/1 unless overridden.
//! Throws usage_error for options that do not fit the alphabet or bad values.
scoring_scheme build_scheme(alphabet_kind alphabet, const scoring_options& options);

//! Everything `swat-gpu align` needs.
struct align_options {
  std::string query_path;
  std::string db_path;
  io::alphabet_request alphabet = io::alphabet_request::auto_detect;
  scoring_options scoring;
  //! --strand as given (unset: both for DNA, the only one for protein, which has no strands).
  std::optional<strand_choice> strand_option;
  //! The strands searched (set by run_align from strand_option and the alphabet).
  strand_choice strand = strand_choice::plus;
  engine_plan engine;                            //!< --device, --kernel, --sync, budgets (registry.hpp)
  output::output_spec outfmt;
  std::string outfmt_text = "blast6";           //!< --outfmt as given (a server request carries it)
  std::string out_path;                          //!< "" or "-" = stdout
  std::size_t max_hits = 10;                     //!< hits (targets) kept per query
  std::size_t max_hsps = 1;                      //!< alignments per query-target pair (0 = all; Waterman–Eggert)
  stats_request stats;                           //!< --stats, --evalue, --min-score (search_stats.hpp)
  //! --dbsize / --dbseqs: the database's residues and sequences for the E-values and the length
  //! adjustment (unset: the database file's), so that a shard searched alone reports the whole
  //! database's E-values.
  std::optional<std::uint64_t> db_residues;
  std::optional<std::uint64_t> db_sequences;
  std::string evalue_text = "10";                //!< --evalue as given (a server request carries it)
  bool quiet = false;                            //!< no notices, no progress line
  //! When set, receives one line with the wall time of each stage (--timing).
  std::function<void(const std::string&)> timing;
  std::string command_line;                      //!< for SAM @PG
  //! When set, a GPU engine is handed to it after the output is complete instead of being torn
  //! down here (the command line ends the process right after: the driver reclaims the device's
  //! memory at once, which saves the engine's frees and the CUDA runtime's teardown); the inputs
  //! are then left unfreed too.
  std::function<void(std::unique_ptr<swat::engine>)> leave_gpu_engine;
  //! The process ends right after (the command line): the inputs' records are left to it
  //! (leave_for_exit) instead of being freed one by one, whatever the engine.
  bool process_ends_after = false;
};

//! One line for the user on stderr (notices and warnings); suppressed by --quiet.
using notice_fn = swat::notice_fn;

//! Reads the queries and the database (FASTA or prepared, database.hpp; in auto mode both must
//! come out as the same alphabet: else a usage_error); the reader's warnings reach notice as
//! "warning: …"; how says how the database was read.
std::pair<sequence_set, sequence_set> read_inputs(const align_options& options, const notice_fn& notice,
                                                  database_read& how);

//! Runs the whole alignment; output goes to out_path or, when empty/"-", to stdout.
void run_align(const align_options& options, std::ostream& stdout_stream, const notice_fn& notice);

class progress_line;

//! A search checked against its inputs before any engine is needed (scores within range, the
//! strands, the format's constraints, the statistics' method): run_align and a search session
//! (search_session.hpp) both answer through it. Throws usage_error / input_error.
struct checked_search {
  align_options searching;  //!< the options with the strands this search uses
  stats_plan plan;          //!< how its E-values are computed
};
checked_search check_search(const align_options& options, const sequence_set& queries, const sequence_set& targets,
                            const scoring_scheme& scheme);

//! What search_and_write measured, for --timing.
struct search_times {
  double scan_s = 0;                //!< the engine's search of every pair (0 when aligned directly)
  double fit_s = 0;                 //!< settling the statistics
  std::uint64_t total_cells = 0;    //!< DP cells of every query × target (× strands)
  std::uint64_t db_residues = 0;    //!< residues of the targets
  std::string stats_method;         //!< how the E-values were computed
  std::chrono::steady_clock::time_point aligned;  //!< when the alignments were done
  std::chrono::steady_clock::time_point began;    //!< when the search began (search_hits)
  std::chrono::steady_clock::time_point collected;  //!< when the hits were collected (before the scan's buffers went)
  //! The pipeline's own steps (--timing): "set up" (before the scan), "report rule" (the
  //! statistics settled, their fit apart), "hits ranked" (the reported targets chosen), "hits
  //! aligned" (the engine's align_many calls), "hits collected", "search's buffers freed".
  std::vector<std::pair<std::string, double>> stages;
};

//! What search_hits found: the reported hits in output order and the statistics of their E-values.
struct search_result {
  search_times times;
  std::vector<output::hit> hits;
  std::optional<scoring::search_statistics> statistics;
};

//! Searches queries against targets on eng: the hits search_and_write writes (the queries are
//! complemented for the minus strand and restored). on_cells, when given, receives the engine's
//! progress too (from any thread); an exception it throws ends the search and leaves here.
search_result search_hits(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                          sequence_set& queries, const sequence_set& targets, bool show_progress,
                          std::atomic<progress_line*>* fill_line = nullptr, const progress_fn& on_cells = {});

//! Targets [first, last) of the database, in its order: the share of it one process searches.
struct target_share {
  std::size_t first = 0;
  std::size_t last = 0;
  std::size_t size() const { return last - first; }
};

//! What the shares of a search exchange for empirical statistics: given this share's best score
//! against each of its targets per query (q · share size + j, the better strand), the best scores
//! against every target of the database (q · targets + t). Called once per search by every share.
using gather_scores_fn = std::function<std::vector<std::int32_t>(std::span<const std::int32_t> share_scores)>;

//! Searches queries against the share of targets on eng: what search_hits finds among those
//! targets (per query the share's best, at most --max-hits, target_index counted in the whole
//! database; times of this share), with the E-values, length adjustment and report rule of the
//! whole database (and --dbsize/--dbseqs). Empirical statistics are fitted to the scores gather
//! returns where it is given (a share smaller than the database needs it). The other arguments
//! as for search_hits.
search_result search_share(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                           sequence_set& queries, const sequence_set& targets, target_share share,
                           const gather_scores_fn& gather, bool show_progress,
                           std::atomic<progress_line*>* fill_line = nullptr, const progress_fn& on_cells = {});

//! Writes a search's hits (of the whole database, merged where shares found them) to out in
//! the format asked for, as search_and_write does; engine_name / engine_device for SAM @PG and JSON.
void write_search(std::ostream& out, const scoring_scheme& scheme, const checked_search& checked,
                  const sequence_set& queries, const sequence_set& targets, const search_result& found,
                  const std::string& engine_name, const std::string& engine_device);

//! Searches queries against targets on eng and writes the hits to out in the format asked for
//! (the caller flushes or commits out). The queries are complemented for the minus strand and
//! restored. show_progress: the progress line on stderr; fill_line, when given, lets the
//! engine's fill progress of a single pair reach it.
search_times search_and_write(engine& eng, const scoring_scheme& scheme, const checked_search& checked,
                              sequence_set& queries, const sequence_set& targets, std::ostream& out,
                              bool show_progress, std::atomic<progress_line*>* fill_line = nullptr);

//! The engine of options.engine (build_engine: auto = GPU when one is usable, else CPU with a
//! notice); its notices reach notice as "notice: …".
std::unique_ptr<engine> make_engine(const align_options& options, const notice_fn& notice);

//! Best hits of query q: sorted by score (descending) then target order, those the rule
//! reports, at most max_hits. A target-dependent rule (rule.passes) is asked only of the
//! best-scoring candidates until max_hits pass.
std::vector<std::size_t> rank_targets(std::span<const best_cell> cells, const report_rule& rule, std::size_t q,
                                      std::size_t max_hits);

}  // namespace swat::pipeline
