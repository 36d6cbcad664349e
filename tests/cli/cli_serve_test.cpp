// End to end, `swat-gpu serve` and `align --server` on the CPU engine: every format byte for byte
// the one-shot command's (the recorded command line included), -o and standard input, four
// clients at once, a client killed mid-request, malformed, foreign-version and oversized frames,
// a wrong scheme, a bad query file, the socket's mode, a stale socket and a live one, and the
// socket removed after SIGTERM and SIGINT. The GPU variant of the equality test skips here.

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "server/protocol.hpp"
#include "server/socket.hpp"
#include "support/run_process.hpp"
#include "support/serve_process.hpp"

namespace fs = std::filesystem;
using swat::test::process_result;
using swat::test::read_file;
using swat::test::run_shell;
using swat::test::serve_process;
using swat::test::temp_dir;
using swat::test::write_file;

namespace {

const std::string binary = SWAT_BINARY;
const fs::path source_dir = SWAT_SOURCE_DIR;
const fs::path shared_data = SWAT_SHARED_DATA;
const std::string dna_query = (source_dir / "data/sarscov2_spike_gene.fa").string();
const std::string dna_db = (source_dir / "data/coronavirus_regions.fa").string();

//! The first n records of a FASTA file.
std::string first_records(const fs::path& path, int n) {
  const std::string text = read_file(path);
  std::size_t at = 0;
  for (int k = 0; k <= n && at != std::string::npos; ++k) at = text.find('>', at + 1);
  return at == std::string::npos ? text : text.substr(0, at);
}

//! Whether ../shared/data holds the protein files the protein inputs take (a clone outside the
//! workspace has none: those tests skip).
bool shared_protein_data() {
  return fs::exists(shared_data / "protein/swissprot_subset_mmseqs2.fa") &&
         fs::exists(shared_data / "protein/spike_sarscov2_QHU36824.fa") && fs::exists(shared_data / "protein/db_queries.fa");
}

//! A protein database of the spike proteins and 300 Swiss-Prot records; queries: three spikes.
struct protein_inputs {
  std::string query, db;
  explicit protein_inputs(const temp_dir& dir) {
    query = (dir / "pq.fa").string();
    db = (dir / "pdb.fa").string();
    write_file(query, read_file(shared_data / "protein/spike_sarscov2_QHU36824.fa") +
                          read_file(shared_data / "protein/spike_ratg13_QHR63300.fa") +
                          read_file(shared_data / "protein/spike_sarscov_AAP33697.1.fa"));
    write_file(db, read_file(source_dir / "data/spike_proteins.fa") +
                       first_records(shared_data / "protein/swissprot_subset_mmseqs2.fa", 300));
  }
};

//! A socket path in a fresh folder of mode 0700.
std::string socket_in(const temp_dir& dir) {
  const fs::path sub = dir / "run";
  fs::create_directory(sub);
  fs::permissions(sub, fs::perms::owner_all, fs::perm_options::replace);
  return (sub / "s.sock").string();
}

//! Runs a command with its own output files (for clients run at once).
process_result run_own(const std::string& command, const temp_dir& dir, const std::string& tag) {
  const fs::path out = dir / (tag + ".out"), err = dir / (tag + ".err");
  const int status = std::system((command + " >" + out.string() + " 2>" + err.string() + " </dev/null").c_str());
  process_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

//! Raw conversation: connects, sends bytes, returns the first message back (or nullopt).
std::optional<swat::server::message> raw_exchange(const std::string& socket, const std::string& bytes) {
  const swat::server::unique_fd fd = swat::server::connect_to(socket);
  ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  try {
    return swat::server::receive_message(fd.get(), 1 << 20);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

//! The server answers a small request exactly as before.
void expect_still_answers(const std::string& socket, const std::string& db, const temp_dir& dir) {
  const auto one = run_own(binary + " align " + dna_query + " " + db + " --device cpu", dir, "check1");
  const auto two = run_own(binary + " align " + dna_query + " --server " + socket, dir, "check2");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
}

class cli_serve : public ::testing::Test {
 protected:
  temp_dir dir;
};

}  // namespace

TEST_F(cli_serve, every_format_is_the_one_shot_output_byte_for_byte) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs p(dir);
  for (const auto& [query, db] : {std::pair{p.query, p.db}, std::pair{dna_query, dna_db}}) {
    const std::string socket = socket_in(dir);
    serve_process server(binary, {db, "--socket", socket, "--device", "cpu"}, dir / "server.err");
    ASSERT_TRUE(server.ready()) << server.stderr_text();
    for (const std::string fmt : {"blast6", "7 std score", "sam", "json", "pair"}) {
      for (const std::string extra : {"", " --max-hits 2 --evalue 1e-5", " --max-hsps 2"}) {
        if (!extra.empty() && fmt != "blast6" && fmt != "sam") continue;
        const std::string opts = " --outfmt '" + fmt + "'" + extra;
        const auto one = run_shell(binary + " align " + query + " " + db + opts + " --device cpu", dir);
        const auto two = run_shell(binary + " align " + query + " --server " + socket + opts, dir);
        ASSERT_EQ(one.exit_code, 0) << one.err;
        ASSERT_EQ(two.exit_code, 0) << two.err;
        EXPECT_FALSE(one.out.empty());
        EXPECT_EQ(one.out, two.out) << fmt << extra;
        EXPECT_EQ(one.err, two.err) << fmt << extra;
      }
    }
    // -o (atomic) and the query on standard input: the same file as the one-shot command's.
    const std::string out = (dir / "a.sam").string();
    const auto one = run_shell("(cat " + query + " | " + binary + " align - " + db + " --outfmt sam -o " + out + " --device cpu)", dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const std::string expected = read_file(out);
    fs::remove(out);
    const auto two = run_shell("(cat " + query + " | " + binary + " align - --server " + socket + " --outfmt sam -o " + out + ")", dir);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_TRUE(two.out.empty());
    EXPECT_EQ(expected, read_file(out));
    // The recorded command line names the database and the server's --device, as the one-shot's.
    EXPECT_NE(expected.find("CL:swat-gpu align - " + db + " --outfmt sam -o " + out + " --device cpu"), std::string::npos)
        << expected;
  }
}

TEST_F(cli_serve, the_server_scheme_is_recorded_and_a_different_one_refused) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs p(dir);
  const std::string socket = socket_in(dir);
  serve_process server(binary, {p.db, "--socket", socket, "--device", "cpu", "--matrix", "BLOSUM45", "--gap-open", "13"},
                       dir / "server.err");
  ASSERT_TRUE(server.ready()) << server.stderr_text();
  const auto one = run_shell(binary + " align " + p.query + " " + p.db +
                                 " --outfmt json --device cpu --matrix BLOSUM45 --gap-open 13",
                             dir);
  const auto two = run_shell(binary + " align " + p.query + " --server " + socket + " --outfmt json", dir);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, two.out);
  // The same scheme given again is fine; another one is refused with the server's.
  const auto same = run_shell(binary + " align " + p.query + " --server " + socket + " --matrix blosum45 --gap-open 13", dir);
  EXPECT_EQ(same.exit_code, 0) << same.err;
  const auto other = run_shell(binary + " align " + p.query + " --server " + socket + " --matrix BLOSUM62", dir);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err,
            "swat-gpu: error: scoring options belong to the server: it scores with BLOSUM45, gap open 13, gap extend 1, "
            "this request asks for BLOSUM62, gap open 11, gap extend 1\n");
  EXPECT_TRUE(other.out.empty());
  const auto engine = run_shell(binary + " align " + p.query + " --server " + socket + " --threads 2", dir);
  EXPECT_EQ(engine.exit_code, 2);
  EXPECT_NE(engine.err.find("--threads belongs to the server"), std::string::npos) << engine.err;
}

TEST_F(cli_serve, four_clients_at_once_get_the_one_shot_answers) {
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs p(dir);
  const std::string socket = socket_in(dir);
  serve_process server(binary, {p.db, "--socket", socket, "--device", "cpu"}, dir / "server.err");
  ASSERT_TRUE(server.ready()) << server.stderr_text();
  const std::string fmts[4] = {"blast6", "sam", "json", "pair"};
  std::vector<std::future<process_result>> clients;
  for (int k = 0; k < 4; ++k)
    clients.push_back(std::async(std::launch::async, [&, k] {
      return run_own(binary + " align " + p.query + " --server " + socket + " --outfmt " + fmts[k], dir,
                     "client" + std::to_string(k));
    }));
  for (int k = 0; k < 4; ++k) {
    const process_result two = clients[std::size_t(k)].get();
    const auto one = run_shell(binary + " align " + p.query + " " + p.db + " --outfmt " + fmts[k] + " --device cpu", dir);
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(one.out, two.out) << fmts[k];
  }
}

TEST_F(cli_serve, killed_clients_and_bad_frames_leave_the_server_answering) {
  const std::string socket = socket_in(dir);
  serve_process server(binary, {dna_db, "--socket", socket, "--device", "cpu", "--max-request", "1"}, dir / "server.err");
  ASSERT_TRUE(server.ready()) << server.stderr_text();
  using namespace swat::server;
  // A client killed while its (large, slow) request runs.
  std::string big = ">big\n";
  for (int k = 0; k < 100000; ++k) big += "ACGT"[(k * 7 + k / 3) % 4];
  write_file(dir / "big.fa", big + "\n");
  {
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::execl(binary.c_str(), binary.c_str(), "align", (dir / "big.fa").c_str(), "--server", socket.c_str(), nullptr);
      ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  // A client that stops in the middle of a frame.
  {
    const unique_fd fd = connect_to(socket);
    const std::string frame = encode(message{message_type::hello, {}});
    ::send(fd.get(), frame.data(), 7, MSG_NOSIGNAL);
  }
  // Garbage, another protocol version, an unknown type, a truncated field, an oversized request.
  auto reply = raw_exchange(socket, "GET / HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(reply && reply->type == message_type::error);
  EXPECT_EQ(reply->get("code"), "2");
  EXPECT_NE(reply->get("message").find("malformed request: not a swat-gpu frame"), std::string::npos);
  std::string v7 = encode(message{message_type::hello, {}});
  v7[5] = 7;
  reply = raw_exchange(socket, v7);
  ASSERT_TRUE(reply && reply->type == message_type::error);
  EXPECT_NE(reply->get("message").find("protocol version 7 is not supported"), std::string::npos) << reply->get("message");
  std::string unknown = encode(message{message_type::hello, {}});
  unknown[7] = 99;
  reply = raw_exchange(socket, unknown);
  ASSERT_TRUE(reply && reply->type == message_type::error);
  EXPECT_NE(reply->get("message").find("unknown message type 99"), std::string::npos);
  std::string truncated = encode(message{message_type::hello, {}}.set("key", "value"));
  truncated[11] = char(truncated[11] - 2);  // the payload ends inside the value
  reply = raw_exchange(socket, truncated.substr(0, truncated.size() - 2));
  ASSERT_TRUE(reply && reply->type == message_type::error);
  EXPECT_NE(reply->get("message").find("truncated field"), std::string::npos) << reply->get("message");
  // An oversized request: refused unread, from the header.
  {
    const unique_fd fd = connect_to(socket);
    send_message(fd.get(), message{message_type::hello, {}});
    ASSERT_EQ(receive_message(fd.get(), 1 << 20)->type, message_type::welcome);
    std::string header = encode(message{message_type::request, {}});
    header[8] = 0x10;  // 256 MiB announced
    ::send(fd.get(), header.data(), header.size(), MSG_NOSIGNAL);
    const auto refused = receive_message(fd.get(), 1 << 20);
    ASSERT_TRUE(refused && refused->type == message_type::error);
    EXPECT_NE(refused->get("message").find("larger than this server takes"), std::string::npos);
  }
  // The client refuses a request beyond the server's --max-request itself, with exit 2.
  std::string huge = ">huge\n" + std::string(std::size_t(3) << 20, 'A') + "\n";
  write_file(dir / "huge.fa", huge);
  const auto too_big = run_shell(binary + " align " + (dir / "huge.fa").string() + " --server " + socket, dir);
  EXPECT_EQ(too_big.exit_code, 2);
  EXPECT_NE(too_big.err.find("larger than the server"), std::string::npos) << too_big.err;
  // A bad query file: align's own error, exit 2; the server goes on.
  write_file(dir / "bad.fa", ">q\nACGT1\n");
  const auto one = run_shell(binary + " align " + (dir / "bad.fa").string() + " " + dna_db + " --device cpu", dir);
  const auto two = run_shell(binary + " align " + (dir / "bad.fa").string() + " --server " + socket, dir);
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_EQ(one.err, two.err);
  write_file(dir / "prot.fa", ">p\nMKVLAAGIVWW\n");
  const auto mixed = run_shell(binary + " align " + (dir / "prot.fa").string() + " --server " + socket, dir);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("reads as protein but " + dna_db + " as dna"), std::string::npos) << mixed.err;
  expect_still_answers(socket, dna_db, dir);
  EXPECT_EQ(::kill(server.pid(), 0), 0);
}

TEST_F(cli_serve, socket_mode_stale_and_live_sockets) {
  const std::string socket = socket_in(dir);
  // A stale socket file (bound, never listened on, its process gone) is replaced.
  {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, socket.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ::close(fd);
  }
  serve_process server(binary, {dna_db, "--socket", socket, "--device", "cpu"}, dir / "server.err");
  ASSERT_TRUE(server.ready()) << server.stderr_text();
  struct stat st {};
  ASSERT_EQ(::lstat(socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A live server is never displaced.
  const auto second = run_shell(binary + " serve " + dna_db + " --socket " + socket + " --device cpu", dir);
  EXPECT_EQ(second.exit_code, 2);
  EXPECT_NE(second.err.find("a server already answers on"), std::string::npos) << second.err;
  expect_still_answers(socket, dna_db, dir);
  // A regular file is not a socket; a folder others may write is refused.
  write_file(dir / "plain", "x");
  const auto plain = run_shell(binary + " serve " + dna_db + " --socket " + (dir / "plain").string(), dir);
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_NE(plain.err.find("exists and is not a socket"), std::string::npos) << plain.err;
  fs::create_directory(dir / "open");
  fs::permissions(dir / "open", fs::perms::all, fs::perm_options::replace);
  const auto open = run_shell(binary + " serve " + dna_db + " --socket " + (dir / "open/s.sock").string(), dir);
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_NE(open.err.find("writable by you only"), std::string::npos) << open.err;
  // Nobody there: the client says so (exit 1).
  const auto none = run_shell(binary + " align " + dna_query + " --server " + (dir / "run/none.sock").string(), dir);
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no swat-gpu server answers on"), std::string::npos) << none.err;
}

TEST_F(cli_serve, sigterm_and_sigint_remove_the_socket) {
  for (const int sig : {SIGTERM, SIGINT}) {
    const std::string socket = socket_in(dir);
    serve_process server(binary, {dna_db, "--socket", socket, "--device", "cpu"}, dir / "server.err");
    ASSERT_TRUE(server.ready()) << server.stderr_text();
    expect_still_answers(socket, dna_db, dir);
    server.signal(sig);
    const int status = server.wait();
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_FALSE(fs::exists(fs::symlink_status(socket))) << socket;
    EXPECT_NE(server.stderr_text().find("removed " + socket), std::string::npos) << server.stderr_text();
  }
}

TEST(cli_serve_gpu, a_gpu_server_answers_as_the_one_shot_gpu_command) {
  temp_dir dir;
  const std::string q = (source_dir / "data/spike_sarscov2_QHU36824.fa").string();
  if (run_shell(binary + " align " + q + " " + q + " --device gpu --quiet", dir).exit_code != 0)
    GTEST_SKIP() << "no usable GPU engine here";
  if (!shared_protein_data()) GTEST_SKIP() << "no protein files in " << shared_data;
  const protein_inputs p(dir);
  for (const auto& [query, db] : {std::pair{p.query, p.db}, std::pair{dna_query, dna_db}}) {
    const std::string socket = socket_in(dir);
    // One GPU on both sides: a server keeps every GPU it is given, where the one-shot command's
    // planner keeps a small search on one, and SAM's @PG line names the GPUs.
    serve_process server(binary, {db, "--socket", socket, "--device", "gpu", "--gpus", "1"}, dir / "server.err");
    ASSERT_TRUE(server.ready(120)) << server.stderr_text();
    for (const std::string fmt : {"blast6", "7 std score", "sam", "json", "pair"}) {
      const std::string opts = " --outfmt '" + fmt + "'";
      const auto one = run_shell(binary + " align " + query + " " + db + opts + " --device gpu --gpus 1", dir);
      const auto two = run_shell(binary + " align " + query + " --server " + socket + opts, dir);
      ASSERT_EQ(two.exit_code, 0) << two.err;
      EXPECT_EQ(one.out, two.out) << fmt;
    }
  }
}
