// The server's socket rules (server/socket.hpp): mode 0600, the folder's owner and mode, stale and
// live sockets, other files at the path; and whole frames on a socket pair (end of stream, a
// frame cut short, another version, an oversized frame).

#include "server/socket.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "support/run_process.hpp"

using namespace swat::server;
namespace fs = std::filesystem;

namespace {

std::string private_socket(const swat::test::temp_dir& dir) {
  fs::permissions(dir.path(), fs::perms::owner_all, fs::perm_options::replace);
  return (dir / "s.sock").string();
}

}  // namespace

TEST(socket, listens_with_mode_0600_and_refuses_a_live_server) {
  swat::test::temp_dir dir;
  const std::string path = private_socket(dir);
  {
    const unique_fd listener = listen_on(path);
    struct stat st {};
    ASSERT_EQ(::lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_THROW(listen_on(path), swat::usage_error);  // it answers (the backlog takes the probe)
    EXPECT_NO_THROW(connect_to(path));
  }
  // The listener closed, the file left behind: stale, replaced.
  ASSERT_TRUE(fs::exists(fs::symlink_status(path)));
  EXPECT_THROW(connect_to(path), swat::runtime_failure);
  EXPECT_NO_THROW(listen_on(path));
}

TEST(socket, refuses_other_files_open_folders_and_long_paths) {
  swat::test::temp_dir dir;
  const std::string path = private_socket(dir);
  std::ofstream(path) << "x";
  EXPECT_THROW(listen_on(path), swat::usage_error);
  fs::create_directory(dir / "open");
  fs::permissions(dir / "open", fs::perms::owner_all | fs::perms::group_write, fs::perm_options::replace);
  EXPECT_THROW(listen_on((dir / "open/s.sock").string()), swat::usage_error);
  EXPECT_THROW(listen_on((dir / std::string(120, 'x')).string()), swat::usage_error);
  EXPECT_THROW(listen_on(""), swat::usage_error);
}

TEST(socket, frames_on_a_socket_pair) {
  const auto socket_pair = [] {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    return std::pair<unique_fd, unique_fd>(unique_fd(fds[0]), unique_fd(fds[1]));
  };
  {
    auto [a, b] = socket_pair();
    EXPECT_TRUE(peer_is_same_user(a.get()));
    send_message(a.get(), message{message_type::notice, {}}.set("line", "one"));
    const auto m = receive_message(b.get(), 100);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->get("line"), "one");
  }
  {  // Oversized: refused from the header.
    auto [a, b] = socket_pair();
    send_message(a.get(), message{message_type::output, {}}.set("bytes", std::string(200, 'x')));
    EXPECT_THROW(receive_message(b.get(), 100), oversized_error);
  }
  {  // Another version.
    auto [a, b] = socket_pair();
    std::string v2 = encode(message{message_type::hello, {}});
    v2[5] = 2;
    ASSERT_EQ(::write(a.get(), v2.data(), v2.size()), ssize_t(v2.size()));
    try {
      receive_message(b.get(), 100);
      ADD_FAILURE() << "no version_error";
    } catch (const version_error& e) {
      EXPECT_EQ(e.version(), 2);
    }
  }
  {  // Cut short, then the end of the stream; sending to a closed peer.
    auto [a, b] = socket_pair();
    const std::string frame = encode(message{message_type::hello, {}}.set("k", "v"));
    ASSERT_EQ(::write(a.get(), frame.data(), 5), 5);
    a = unique_fd();
    EXPECT_THROW(receive_message(b.get(), 100), peer_gone);
    EXPECT_FALSE(receive_message(b.get(), 100));
    EXPECT_THROW(send_message(b.get(), message{message_type::hello, {}}), peer_gone);
  }
}
