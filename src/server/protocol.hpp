#pragma once
// The protocol of `swat-gpu serve` (docs/serve.md): length-prefixed frames on a Unix domain
// socket. A frame is a 12-byte header — the magic "SWAT", the protocol version (u16), the
// message type (u16) and the payload length (u32), all big-endian — then the payload: fields,
// each a key (u8 length, bytes) and a value (u32 length, bytes). The header's layout never
// changes between versions, so either side can name the other's version in its refusal.
//
// Why hand-written: no framing library with headers is packaged on the build machines
// (protobuf, Cap'n Proto, msgpack, CBOR: runtime libraries only, no -dev packages), and the
// format is two length prefixes deep. Every branch of the decoder is tested
// (tests/server/protocol_test.cpp), including truncated, oversized and garbage input.

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/sequence.hpp"

namespace swat::server {

//! The protocol version this build speaks.
inline constexpr std::uint16_t protocol_version = 1;
//! Bytes of a frame header: magic (4), version (2), type (2), payload length (4).
inline constexpr std::size_t frame_header_bytes = 12;
//! The first four bytes of every frame.
inline constexpr std::string_view frame_magic = "SWAT";

//! Message types (the header's type field).
enum class message_type : std::uint16_t {
  hello = 1,    //!< client → server: opens a conversation (no fields)
  welcome = 2,  //!< server → client: the database, scheme, engine and the server's options
  request = 3,  //!< client → server: queries and the options of one search
  notice = 4,   //!< server → client: one line for the client's stderr ("line")
  output = 5,   //!< server → client: the next bytes of the output ("bytes")
  done = 6,     //!< server → client: the answer is complete ("timing")
  error = 7,    //!< server → client: refused ("code": "1" or "2", "message": one line)
};

//! A malformed frame or message (bad magic, truncated, a missing or repeated field, …).
class protocol_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

//! One message: its type and its fields, in order.
struct message {
  message_type type = message_type::hello;
  std::vector<std::pair<std::string, std::string>> fields;

  //! Appends a field (keys are at most 255 bytes and unique in a message).
  message& set(std::string key, std::string value);
  //! The value of key, or null.
  const std::string* find(std::string_view key) const;
  //! The value of key; throws protocol_error naming it when it is missing.
  const std::string& get(std::string_view key) const;
};

//! A frame's header as read.
struct frame_header {
  std::uint16_t version = 0;
  std::uint16_t type = 0;
  std::uint32_t length = 0;  //!< payload bytes
};

//! The frame (header and payload) of m in protocol_version. Throws protocol_error when the
//! payload would exceed 2^32 − 1 bytes or a key 255 bytes.
std::string encode(const message& m);
//! Reads a header; throws protocol_error unless it starts with the magic. bytes: 12 bytes.
frame_header decode_header(std::string_view bytes);
//! The message of a payload of the given type; throws protocol_error for an unknown type, a
//! truncated or overlong field, or a key given twice.
message decode_payload(std::uint16_t type, std::string_view payload);

//! Records (name, description, encoded residues) as one field value.
std::string encode_records(const std::vector<sequence_record>& records);
//! The records of a field value; throws protocol_error when truncated, when a name is empty or
//! a residue is not a rank of the alphabet.
std::vector<sequence_record> decode_records(std::string_view bytes, alphabet_kind alphabet);

//! Words (no NUL bytes) as one field value, each ended by a NUL; and back (throws
//! protocol_error for a value that does not end with NUL).
std::string join_words(std::span<const std::string> words);
std::vector<std::string> split_words(std::string_view value);

}  // namespace swat::server
