#pragma once
// Atomic replacement of an output file: write to a temporary file beside the target, then
// fsync and rename over it. Readers see the old file or the complete new one, never a part.

#include <fstream>
#include <ostream>
#include <string>

namespace swat::output {

//! Writes <path> atomically through a temporary "<path>.tmp.<pid>.<random>" in the same
//! directory. Not copyable or movable (hold it in std::optional to create it conditionally).
class atomic_file {
 public:
  //! Creates the temporary file. Throws swat::runtime_failure naming path when the directory
  //! is missing or not writable, or path names a directory.
  explicit atomic_file(std::string path);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  //! Removes the temporary file unless commit() succeeded; never throws.
  ~atomic_file();

  //! The stream to write the content to.
  std::ostream& stream() { return out_; }
  //! Flushes, checks the stream, fsyncs and renames the temporary file over path (and fsyncs
  //! the directory). Throws swat::runtime_failure naming path on any failure (disk full, …);
  //! the temporary file is then removed by the destructor. Calling it twice is a logic error.
  void commit();

  //! The target path as given.
  const std::string& path() const { return path_; }
  //! The temporary file's path.
  const std::string& temp_path() const { return temp_path_; }
  //! True after a successful commit().
  bool committed() const { return committed_; }

 private:
  std::string path_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace swat::output
