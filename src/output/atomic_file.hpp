#pragma once
// Safe output files. A regular file (or a path that does not exist yet) is replaced atomically:
// the content goes to a temporary file beside it, which is fsynced and renamed over it, so
// readers see the old file or the complete new one, never a part. Anything else is written in
// place and never replaced: a FIFO, a character device, a socket or block device, and
// /dev/stdout, /dev/stderr, /dev/fd/N (the inherited descriptor itself). A symbolic link is
// followed and its target replaced (the link stays); a replaced file keeps its mode and, where
// the system permits, its owner and group. An output that is the same file as an input (device
// and inode, after links) is refused. The temporary file is created by the constructor, so an
// unwritable location fails before any work is done, and its name is kept where a signal
// handler can remove it (remove_temp_files_signal_safe).

#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace swat::output {

//! How an atomic_file writes its path.
enum class output_mode {
  replace,  //!< temporary file + rename over a regular file or a new path
  in_place  //!< written directly: special files and inherited descriptors
};

//! Writes one output path safely (see the file comment). Not copyable or movable (hold it in
//! std::optional to create it conditionally).
class atomic_file {
 public:
  //! Resolves path and prepares the output: for replace mode creates the temporary file (with
  //! the mode and owner of the file it will replace), for in-place mode checks write access.
  //! inputs: files that must not be overwritten (missing ones are ignored).
  //! Throws swat::usage_error for an empty path or an output that is the same file as an input,
  //! swat::runtime_failure naming path when it cannot be written (missing or read-only
  //! directory, read-only file, a directory, too many symbolic links, …).
  explicit atomic_file(std::string path, std::span<const std::string> inputs = {});
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  //! Removes the temporary file unless commit() succeeded; never throws.
  ~atomic_file();

  //! The stream to write the content to. In in-place mode the first call opens the file (for
  //! a FIFO this waits for a reader); throws swat::runtime_failure when that fails.
  std::ostream& stream();
  //! Flushes and checks every byte written. Replace mode: fsyncs and renames the temporary
  //! file over the target (then fsyncs the directory). Throws swat::runtime_failure naming path
  //! on any failure (disk full, …); the temporary file is then removed by the destructor.
  //! Calling it twice is a logic error.
  void commit();

  //! The path as given.
  const std::string& path() const { return path_; }
  //! The file actually written: path after symbolic links ("fd N" for an inherited descriptor).
  const std::string& target_path() const { return target_; }
  //! The temporary file's path (replace mode), empty in in-place mode.
  const std::string& temp_path() const { return temp_path_; }
  //! Replace or in place.
  output_mode mode() const { return mode_; }
  //! True after a successful commit().
  bool committed() const { return committed_; }

 private:
  class fd_buffer;
  void open_in_place();

  std::string path_;
  std::string target_;
  std::string temp_path_;
  output_mode mode_ = output_mode::replace;
  int inherited_fd_ = -1;  //!< descriptor N of /dev/fd/N (in place), else -1
  int fd_ = -1;            //!< the descriptor written to
  std::unique_ptr<fd_buffer> buffer_;
  std::unique_ptr<std::ostream> out_;
  int registry_slot_ = -1;
  bool committed_ = false;
};

//! Finished files that a signal also removes while this object holds them: outputs of one run
//! that are complete (renamed into place) but must not outlive the run unless it succeeds (a
//! makedb's volumes before its index lists them). Give only fresh paths (nothing of anyone's is
//! there). One set per process at a time: a second one, while the first is held, holds nothing.
class remove_on_signal {
 public:
  explicit remove_on_signal(std::span<const std::string> paths);
  remove_on_signal(const remove_on_signal&) = delete;
  remove_on_signal& operator=(const remove_on_signal&) = delete;
  ~remove_on_signal() { release(); }
  //! From now on a signal leaves the files.
  void release() noexcept;

 private:
  std::vector<std::string> paths_;
  std::vector<const char*> names_;
  bool held_ = false;
};

//! For a signal handler that ends the process: from now on no atomic_file creates its temporary
//! file or renames one into place (those calls throw runtime_failure), and the ones under way in
//! other threads are waited for (at most 2 s), so that what the handler removes next cannot
//! reappear behind it. Only async-signal-safe calls (atomics, clock_gettime).
void stop_new_files_signal_safe() noexcept;

//! Unlinks every temporary output file of this process that is not committed yet, and the files
//! of a remove_on_signal set that is held. Only async-signal-safe calls (unlink on names kept
//! where nothing frees them meanwhile): for signal handlers.
void remove_temp_files_signal_safe() noexcept;

}  // namespace swat::output
