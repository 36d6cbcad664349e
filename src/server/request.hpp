#pragma once
// A search request of the serve protocol (docs/serve.md): the client's queries (read and encoded
// by the client, so that a bad query file gets align's own error from the client) and the
// options of one search, as the message fields both sides agree on.

#include "common/sequence.hpp"
#include "pipeline/align_pipeline.hpp"
#include "server/protocol.hpp"

namespace swat::server {

//! A request as the server takes it.
struct search_request {
  pipeline::align_options options;  //!< query_path, output, report and scoring options
  sequence_set queries;
};

//! The request message of options (its query_path, outfmt, strand_option, max_hits, max_hsps,
//! stats, scoring and command_line) and queries.
message make_request(const pipeline::align_options& options, const sequence_set& queries);
//! The request of a message; throws protocol_error for a missing or unreadable field and the
//! usage_error align gives for a bad --outfmt, --strand or --stats.
search_request parse_request(const message& m);

}  // namespace swat::server
