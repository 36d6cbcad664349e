#pragma once
// Encoded sequences as the pipeline and every engine see them.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/alphabet.hpp"

namespace swat {

//! Encoded residues handed to engines (ranks of common/alphabet.hpp).
using residue_span = std::span<const std::uint8_t>;

//! A record's encoded residues: bytes of its own, or a view of bytes that its sequence_set
//! keeps alive (sequence_set::backing: a prepared database's mapped volumes, read-only, or the
//! FASTA reader's arena, writable in place through writable_data()). Reads like a const vector;
//! every other write first makes it own its bytes. A copy always owns its bytes (it may outlive
//! the set it came from); a move keeps a view a view.
class residue_store {
 public:
  residue_store() = default;
  residue_store(std::vector<std::uint8_t> owned) : owned_(std::move(owned)) {}  // NOLINT: a vector is residues
  residue_store(std::initializer_list<std::uint8_t> ranks) : owned_(ranks) {}
  //! A view of bytes that outlive the store (read-only: a write copies them first).
  static residue_store view_of(residue_span bytes) {
    residue_store s;
    s.view_ = bytes.data();
    s.view_size_ = bytes.size();
    return s;
  }
  //! A view of bytes that outlive the store and that it may write in place (an arena of the
  //! set's own, sequence_set::backing).
  static residue_store writable_view_of(std::span<std::uint8_t> bytes) {
    residue_store s = view_of(bytes);
    s.writable_ = true;
    return s;
  }
  residue_store(const residue_store& o) : owned_(o.begin(), o.end()) {}
  residue_store(residue_store&& o) noexcept = default;
  residue_store& operator=(const residue_store& o) {
    if (this != &o) *this = residue_store(o);
    return *this;
  }
  residue_store& operator=(residue_store&& o) noexcept = default;

  bool is_view() const { return view_ != nullptr; }
  std::size_t size() const { return view_ ? view_size_ : owned_.size(); }
  bool empty() const { return size() == 0; }
  const std::uint8_t* data() const { return view_ ? view_ : owned_.data(); }
  const std::uint8_t* begin() const { return data(); }
  const std::uint8_t* end() const { return data() + size(); }
  std::uint8_t operator[](std::size_t i) const { return data()[i]; }
  std::uint8_t back() const { return data()[size() - 1]; }
  //! Rank i; throws std::out_of_range past the end.
  std::uint8_t at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("residue_store::at");
    return data()[i];
  }
  //! Bytes it holds room for (a view: its size).
  std::size_t capacity() const { return view_ ? view_size_ : owned_.capacity(); }
  operator residue_span() const { return {data(), size()}; }  // NOLINT: read as a span everywhere

  //! Its bytes as a vector of its own, to write (a view is copied first).
  std::vector<std::uint8_t>& own() {
    if (view_) {
      owned_.assign(view_, view_ + view_size_);
      view_ = nullptr;
      view_size_ = 0;
      writable_ = false;
    }
    return owned_;
  }
  //! Its bytes to write in place: a writable view's own, else those of own().
  std::uint8_t* writable_data() { return view_ && writable_ ? const_cast<std::uint8_t*>(view_) : own().data(); }
  template <class it_t>
  void assign(it_t first, it_t last) {
    view_ = nullptr;
    view_size_ = 0;
    writable_ = false;
    owned_.assign(first, last);
  }
  void push_back(std::uint8_t rank) { own().push_back(rank); }
  void resize(std::size_t n) { own().resize(n); }
  void reserve(std::size_t n) { own().reserve(n); }
  void clear() { assign(static_cast<const std::uint8_t*>(nullptr), static_cast<const std::uint8_t*>(nullptr)); }

  friend bool operator==(const residue_store& a, const residue_store& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::vector<std::uint8_t> owned_;
  const std::uint8_t* view_ = nullptr;  //!< the viewed bytes (nullptr: owned_ holds them)
  std::size_t view_size_ = 0;
  bool writable_ = false;  //!< the view may be written in place
};

//! One FASTA record: name (header's first word), description (the rest), encoded residues.
struct sequence_record {
  std::string name;
  std::string description;
  residue_store residues;
};

//! All records of one input file, encoded in one alphabet.
struct sequence_set {
  std::string file;
  alphabet_kind alphabet = alphabet_kind::dna;
  std::vector<sequence_record> records;
  //! What the records' views read (a prepared database's mapped volumes, a FASTA file's arena);
  //! empty when every record owns its residues.
  std::vector<std::shared_ptr<const void>> backing;
};

//! Complement of a DNA rank: A<->T, C<->G, N (and the other IUPAC codes, encoded N) stays N.
inline std::uint8_t dna_complement(std::uint8_t rank) { return rank < dna_n_rank ? std::uint8_t(3 - rank) : rank; }

//! The reverse complement of encoded DNA.
inline std::vector<std::uint8_t> reverse_complement(residue_span residues) {
  std::vector<std::uint8_t> out(residues.size());
  for (std::size_t i = 0; i < residues.size(); ++i) out[residues.size() - 1 - i] = dna_complement(residues[i]);
  return out;
}

}  // namespace swat
