#pragma once
// A search session: the database, its scoring scheme and a started engine that outlive one
// search. `swat-gpu serve` holds one and answers every request through it; each answer is what
// `swat-gpu align` writes for the same queries and options (both go through check_search and
// search_and_write, align_pipeline.hpp). The Python package (python/) holds one per Searcher and
// one per align() call, over sequences it read or was given, on engines it keeps between calls:
// its hits are the JSON output's records, its scores the scan's best scores. Searches run one at
// a time on the engine.

#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "common/scoring_scheme.hpp"
#include "common/sequence.hpp"
#include "engine/engine.hpp"
#include "engine/registry.hpp"
#include "io/fasta.hpp"
#include "pipeline/align_pipeline.hpp"
#include "pipeline/database.hpp"

namespace swat::pipeline {

//! What a session is made of: the database and the options every search of it shares.
struct session_options {
  std::string db_path;  //!< database: FASTA or a prepared database's PREFIX (as given)
  io::alphabet_request alphabet = io::alphabet_request::auto_detect;  //!< --alphabet
  scoring_options scoring;                                        //!< the scheme's options
  engine_plan engine;                                             //!< --device, --kernel, … (registry.hpp)
  //! Search a short piece of the first target against the whole database once at the start, so
  //! that a database engine has prepared (packed, uploaded) the targets before the first request.
  bool warm_up = true;
  //! Tell the engine that the targets stay (engine::pin_targets) until the session goes or
  //! release_engine() is called: a database engine keeps them prepared between searches.
  bool pin = true;
};

//! One answered search's measurements.
struct session_answer {
  double wait_s = 0;    //!< waiting for the engine (other searches before this one)
  double search_s = 0;  //!< scan, statistics and traceback
  double output_s = 0;  //!< formatting the hits
  std::string timing;   //!< the --timing line of the search (its engine, stages and plan)
};

class search_session {
 public:
  //! Reads the database (the engine starts in a second thread meanwhile, as align's does),
  //! builds the scheme of its alphabet and, with warm_up, runs the first search. --device auto
  //! takes the GPU where one is usable (the session does not know the searches' sizes).
  //! notice receives the engine's notices and the reader's warnings ("notice: …", "warning: …").
  search_session(session_options options, const notice_fn& notice);
  //! A session over targets already read (options.db_path only names them; read: how, e.g. by
  //! read_database), on eng where given (an engine the caller keeps between sessions, see
  //! release_engine()), else on options.engine's.
  search_session(session_options options, sequence_set targets, std::unique_ptr<engine> eng,
                 const notice_fn& notice, const database_read& read = {});
  ~search_session();
  search_session(const search_session&) = delete;
  search_session& operator=(const search_session&) = delete;

  const session_options& options() const { return options_; }
  const sequence_set& targets() const { return targets_; }
  const scoring_scheme& scheme() const { return scheme_; }
  std::string engine_name() const { return engine_->name(); }
  std::string engine_device() const { return engine_->device(); }
  //! Seconds from the start of the constructor until the engine was ready and the database read
  //! (and warmed up).
  double ready_seconds() const { return ready_s_; }

  //! Checks a request whose queries are read: the same alphabet as the database (align's error),
  //! scoring options that, where the request gives any, make the session's scheme (else a
  //! usage_error naming the session's scheme), then check_search.
  checked_search check(const align_options& request, const sequence_set& queries) const;
  //! Searches and writes the hits to out: the bytes `swat-gpu align` writes for the same queries,
  //! database and options. One search at a time; callers from several threads queue.
  session_answer answer(const checked_search& checked, sequence_set& queries, std::ostream& out);
  //! The hits of a checked search as the JSON output's records (output.hpp), in its order. cells,
  //! when given, also receives the engine's progress (from any thread; an exception it throws
  //! ends the search and leaves here, and the engine should not be used again).
  std::vector<output::hit_record> hits(const checked_search& checked, sequence_set& queries,
                                       const progress_fn& cells = {});
  //! The best score of every query against every target, row-major (q · targets + t): on DNA
  //! searched on both strands the better strand's, 0 where nothing scores. Scores only, no
  //! traceback (the scan of search_hits); cells as for hits().
  std::vector<std::int32_t> scores(const checked_search& checked, sequence_set& queries,
                                   const progress_fn& cells = {});
  //! Hands the engine back (unpinned) for another session; the session cannot search after it.
  std::unique_ptr<engine> release_engine();

 private:
  session_options options_;
  sequence_set targets_;
  scoring_scheme scheme_;
  std::unique_ptr<engine> engine_;
  database_read read_;       //!< how the database was read (FASTA or prepared)
  std::mutex engine_mutex_;  //!< one search at a time
  double ready_s_ = 0;

  //! Pins the targets and warms the engine up, as options_ asks.
  void prepare();
};

//! "BLOSUM62, gap open 11, gap extend 1" (what an error about another scheme names).
std::string describe_scheme(const scoring_scheme& scheme);

}  // namespace swat::pipeline
