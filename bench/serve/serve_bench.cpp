// `swat-gpu bench serve`: the one-shot command (`swat-gpu align QUERY DB`) against a request to a
// warm server (`swat-gpu align QUERY --server PATH` after `swat-gpu serve DB`), end to end as the
// user sees them (process start to exit, output to /dev/null), the median of --repeat runs of
// each, interleaved, in the same run. Cases: protein_x1 (db_queries.fa, 7 queries, against the
// Swiss-Prot subset), protein_x50 (the subset written 50 times, names made distinct as
// bench/dbsearch/run_db.sh does) and dna_30kb (SARS-CoV-2 against RaTG13, ~30 kb each). CSV rows
// case,mode,seconds,commit,device,date.

#include <cxxopts.hpp>

#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/common/bench_data.hpp"
#include "bench/common/bench_process.hpp"
#include "bench/common/bench_record.hpp"
#include "cli/bench_registry.hpp"
#include "cli/option_values.hpp"
#include "common/error.hpp"

namespace swat::bench {
namespace {

namespace fs = std::filesystem;

//! A server of db on socket, stopped (SIGTERM) with the object.
class server {
 public:
  server(const std::string& self, const std::string& db, const std::string& socket, const std::vector<std::string>& engine,
         const std::string& err_path) {
    std::vector<std::string> argv{self, "serve", db, "--socket", socket};
    argv.insert(argv.end(), engine.begin(), engine.end());
    pid_ = spawn_command(argv, err_path);
    for (int k = 0; k < 6000; ++k) {  // up to 10 minutes: reading and packing a large database
      std::ifstream in(err_path);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("notice: ready after") != std::string::npos) return;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw runtime_failure("bench serve: the server of " + db + " ended: " + text.str());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    throw runtime_failure("bench serve: the server of " + db + " did not get ready");
  }
  ~server() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  server(const server&) = delete;
  server& operator=(const server&) = delete;

 private:
  pid_t pid_ = -1;
};

struct bench_case {
  std::string name, query, db;
};

int serve_main(const std::vector<std::string>& args) {
  cxxopts::Options opts("swat-gpu bench serve", "One-shot align against a request to a warm server");
  // clang-format off
  opts.add_options()
    ("cases", "protein_x1,protein_x50,dna_30kb (a comma-separated choice)",
     cxxopts::value<std::string>()->default_value("protein_x1,protein_x50,dna_30kb"))
    ("repeat", "runs of each mode per case (median kept)", cxxopts::value<std::string>()->default_value("5"))
    ("engine-args", "engine options of the one-shot command and the server",
     cxxopts::value<std::string>()->default_value("--device gpu"))
    ("csv", "CSV written", cxxopts::value<std::string>()->default_value("serve.csv"))
    ("dir", "folder for the ×50 database and the socket (default: a new temporary folder)", cxxopts::value<std::string>())
    ("device-name", "device recorded (default: nvidia-smi's first GPU, else cpu)", cxxopts::value<std::string>())
    ("commit", "git commit recorded (default: from git)", cxxopts::value<std::string>())
    ("h,help", "this help");
  // clang-format on
  const auto argv = cli::argv_of("swat-gpu bench serve", args);
  const auto r = opts.parse(int(argv.size()), argv.data());
  if (r.count("help")) {
    std::cout << opts.help();
    return 0;
  }
  cli::reject_unmatched(r.unmatched());
  const int repeat = int(cli::integer_value("--repeat", r["repeat"].as<std::string>(), 1, 1000));
  std::vector<std::string> engine;
  {
    std::istringstream words(r["engine-args"].as<std::string>());
    for (std::string w; words >> w;) engine.push_back(w);
  }
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::string dir;
  if (r.count("dir")) {
    dir = r["dir"].as<std::string>();
    fs::create_directories(dir);
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  } else {
    std::string templ = (fs::temp_directory_path() / "swat-bench-serve-XXXXXX").string();
    if (!::mkdtemp(templ.data())) throw runtime_failure("bench serve: mkdtemp failed");
    dir = templ;
  }
  const std::string data = shared_data_dir();
  const std::string subset = data + "/protein/swissprot_subset_mmseqs2.fa";
  std::vector<bench_case> cases;
  for (const std::string& name : cli::word_list(r["cases"].as<std::string>())) {
    if (name == "protein_x1") {
      cases.push_back({name, data + "/protein/db_queries.fa", subset});
    } else if (name == "protein_x50") {
      const std::string x50 = dir + "/swissprot_x50.fa";
      write_copies(subset, x50, 50);
      cases.push_back({name, data + "/protein/db_queries.fa", x50});
    } else if (name == "dna_30kb") {
      cases.push_back({name, data + "/dna/sarscov2_MN908947.3.fa", data + "/dna/ratg13_MN996532.2.fa"});
    } else {
      throw usage_error("--cases: unknown case '" + name + "' (valid: protein_x1, protein_x50, dna_30kb)");
    }
  }
  const std::string commit = r.count("commit") ? r["commit"].as<std::string>() : git_commit(SWAT_SERVE_SOURCE_DIR);
  std::string device = r.count("device-name") ? r["device-name"].as<std::string>() : gpu_name_or_cpu();
  if (device.empty()) device = "cpu";
  const std::string date = utc_now();
  const std::string csv_path = r["csv"].as<std::string>();
  std::ofstream csv(csv_path);
  if (!csv) throw runtime_failure("cannot write " + csv_path);
  csv << "case,mode,seconds,commit,device,date\n";
  std::fprintf(stderr, "%-12s %10s %10s\n", "case", "oneshot_s", "server_s");
  const std::string socket = dir + "/serve.sock";
  const std::string err = dir + "/stderr.txt";
  for (const bench_case& c : cases) {
    const server warm(self, c.db, socket, engine, dir + "/server.txt");
    std::vector<std::string> oneshot{self, "align", c.query, c.db, "--quiet"};
    oneshot.insert(oneshot.end(), engine.begin(), engine.end());
    const std::vector<std::string> request{self, "align", c.query, "--server", socket, "--quiet"};
    std::vector<double> one, two;
    for (int k = 0; k < repeat; ++k) {
      one.push_back(timed_command("bench serve", oneshot, err));
      two.push_back(timed_command("bench serve", request, err));
    }
    const double one_s = median(one), two_s = median(two);
    std::fprintf(stderr, "%-12s %10.3f %10.3f\n", c.name.c_str(), one_s, two_s);
    csv << c.name << ",oneshot," << one_s << "," << commit << "," << csv_quote(device) << "," << date << "\n";
    csv << c.name << ",server," << two_s << "," << commit << "," << csv_quote(device) << "," << date << "\n";
  }
  if (!r.count("dir")) fs::remove_all(dir);
  return 0;
}

}  // namespace

void register_serve_bench(cli::bench_registry& registry) {
  registry.add({"serve", "one-shot `align` against a request to a warm `serve` (protein ×1, ×50, DNA 30 kb), seconds",
                false, &serve_main});
}

}  // namespace swat::bench
