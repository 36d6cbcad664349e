#pragma once
// The shape planner's device choice: from the size of a search (residues of the queries and the
// targets, strands), one cost model predicts the whole command on the GPU (its start, then the
// database scan's rate, or the pair engine's for a few long × long pairs) and on the CPU engine
// over all its threads; --device auto takes the CPU engine where it is predicted faster, so the
// GPU is never the slower choice for small searches. The engines' own decisions (windows of long
// sides, both strands in one scan, transposition, kernel shapes) come back through
// engine::decisions(); --timing prints both as one `plan:` line.
//
// The rates are measured on the GPU machines and the 2-core development VM (bench/results/
// shapes_h200.csv: scans of 1.3-3.5e12 cells/s, the CPU engine 1.6 GCUPS a thread on 16;
// db_h100.csv; cpu_engine_devvm_t2.csv); the choice matters only near the break-even point
// (about 1e10 cells on 16 threads), where both take a fraction of a second.

#include <cstdint>
#include <string>

namespace swat {

//! What the planner knows of a search.
struct search_size {
  std::uint64_t query_residues = 0;   //!< Σ query lengths
  std::uint64_t target_residues = 0;  //!< Σ target lengths
  std::uint64_t queries = 0;          //!< query records (0: unknown)
  std::uint64_t targets = 0;          //!< target records (0: unknown)
  int strands = 1;                    //!< DNA both strands: 2
  bool protein = false;               //!< protein sequences (the scan is faster on them)
  //! DP cells of the search.
  double cells() const { return double(query_residues) * double(target_residues) * strands; }
};

//! The cost model's rates.
struct cost_model {
  double gpu_start_s = 0.35;                  //!< CUDA context, engine and exit (H100 machine: 0.23-0.54 s)
  double gpu_scan_cells_per_s = 2.5e12;       //!< database scan (3.6-4.4e12 measured on protein, less on DNA)
  double gpu_pair_cells_per_s = 0.8e12;       //!< a few long × long pairs on the pair engine (score, traceback)
  double cpu_cells_per_s_per_thread = 2.0e9;  //!< CPU engine, whole search (1.1-2.8e9 measured per thread)
  double gpu_protein_scan_cells_per_s = 4.0e12;  //!< … on protein (4.4e12 on Swiss-Prot ×50, one H100 or H200)
  //! CUDA's start grows with every visible GPU, and the driver starts contexts one at a time,
  //! also across processes, holding the other GPUs' calls meanwhile (cuInit 0.19 s with one H200
  //! visible, 0.29 s with two, 0.55 s with four; each context ~0.12 s): the engine was ready
  //! 0.30 s after the start with one GPU visible, 0.44-0.48 s with two, 0.90 s with four; the
  //! other GPUs joined the scan 0.13 s (two) and 0.41 s (four, all at once) after the first
  //! began (bench/results/multigpu_start_h200x4.txt).
  double gpu_init_s = 0.15;     //!< CUDA's start, for each further visible GPU
  double gpu_context_s = 0.13;  //!< the further GPUs join the scan this much later, each
  //! A GPU's scan rate when several share the queue of chunks, against one GPU scanning the whole
  //! database at once (the ×50 scan on one H200: 0.53 s whole, 0.59 s in 4 chunks or shared by two
  //! workers).
  double multi_gpu_efficiency = 0.89;
  //! More GPUs only where they are predicted at least this much faster (the model's error).
  double multi_gpu_margin = 0.9;
  //! A few long pairs: the score pass of one pair on one GPU whose warps it fills (2.58-2.68e12
  //! cells/s on one H200 for the 1.46 and 2.93 Mb pairs), one warp a strip of long_pair_strip_rows
  //! query rows. Below long_pair_full_strips strips on a GPU its warps are too few to hide their
  //! latency and the rate falls in proportion: the 1.46 Mb pair's 1,430 strips took 0.80 s on one
  //! H200 and 0.725 s in bands over two (715 strips each), the 2.93 Mb pair's 2,860 strips 3.32
  //! and 1.89 s (bench/results/multigpu_h200x2.csv).
  double gpu_long_pair_cells_per_s = 2.6e12;
  double long_pair_strip_rows = 1024;   //!< query rows of one strip (one warp) of that fill
  double long_pair_full_strips = 1430;  //!< strips that fill one GPU's warps (H100, H200: 132 SMs)
  //! A pair whose one side is this many times the other's length is tall and narrow: cut into
  //! windows of its long side (engine/windows.hpp), not filled in bands over GPUs.
  double long_pair_max_ratio = 8;
};

//! The planner's prediction and choice.
struct device_plan {
  double gpu_s = 0;         //!< predicted whole-search seconds on the GPU
  double cpu_s = 0;         //!< … on the CPU engine with cpu_threads threads
  unsigned cpu_threads = 1;
  bool use_cpu = false;     //!< the CPU engine is predicted faster
  int gpus = 0;             //!< GPUs the search uses (plan_gpu_count; 0 on the CPU engine)
  int available_gpus = 1;   //!< … of these
  //! One phrase for notices and --timing: "CPU engine on 16 threads (predicted 0.04 s; GPU 0.36 s)",
  //! "one GPU (predicted 0.97 s; …)".
  std::string describe() const;
};

//! Predicts the search on both devices (threads: the CPU engine's, ≥ 1; available_gpus: the
//! GPUs it may use).
device_plan plan_device(const search_size& size, unsigned threads, const cost_model& model = {},
                        int available_gpus = 1);

//! How many of `available` GPUs (the first ones) a search uses, ≥ 1. A database scan shares its
//! chunks over the GPUs, the others joining when their contexts have started (gpu_context_s each,
//! one after the other), and every visible GPU lengthens CUDA's start (gpu_init_s): the count with the
//! fewest GPUs predicted within multi_gpu_margin of the fastest count, and more than one only
//! where that is at least multi_gpu_margin faster than one. A few long × long pairs (fewer than
//! 64 pairs, record counts known; tall, narrow ones keep to one GPU) are filled one after the
//! other, each in bands of query rows over the GPUs (their special rows on the first, where the
//! traceback walks; the model assumes peer access between the GPUs): n GPUs fill a pair
//! at n × min(1, strips / (n · long_pair_full_strips)) of one GPU's full rate, and each further
//! GPU adds gpu_init_s + gpu_context_s to the start (a pair waits for every GPU); the same rule of
//! the fastest count and the margin picks n (the 2.93 Mb pair: two GPUs; the 1.46 Mb pair, whose
//! strips barely fill one GPU: one).
int plan_gpu_count(const search_size& size, int available, const cost_model& model = {});

//! The residues of a FASTA file estimated from its size in bytes (headers and line ends taken
//! off at ~2 %, gzip at 4× compression); 0 when the path is not a regular file (standard input).
std::uint64_t estimated_residues(const std::string& path);

//! What the first 64 KiB of a FASTA or FASTQ file say of it.
struct file_sample {
  //! Records estimated (0: unknown): the sample's whole records scaled by the file's size; where
  //! the first record is longer than the sample (a genome), the file's records counted, or in a
  //! file over 64 MiB taken as records of four samples each.
  std::uint64_t records = 0;
  bool protein = false;       //!< its sequence letters are more than 10 % other than nucleotide codes (IUPAC)
  //! Residues estimated: the sample's sequence letters scaled by the file's size (headers, such as
  //! Swiss-Prot's quarter of its bytes, and line ends left out); estimated_residues where no
  //! letters were sampled (gzip).
  std::uint64_t residues = 0;
  bool letters_seen = false;  //!< residues (and protein) come from sampled letters
};

//! Samples a plain (not gzip) regular file; records 0 and residues from the file's size for
//! anything else.
file_sample sample_sequences(const std::string& path);

}  // namespace swat
