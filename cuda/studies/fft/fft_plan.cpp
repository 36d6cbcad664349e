// Host half of the FFT: pass planning and the CPU executor that mirrors the device tiling
// (fft.hpp, fft_index.hpp). Built in every configuration (library swat_fft_host).

#include <cmath>
#include <numbers>
#include <string>

#include "common/error.hpp"
#include "cuda/studies/fft/fft.hpp"
#include "cuda/studies/fft/fft_index.hpp"

namespace swat::fft {
namespace {

detail::fft_policy policy_of(precision prec) {
  return prec == precision::fp32 ? detail::fp32_policy : detail::fp64_policy;
}

std::vector<int> inner_split(int log_r) {
  std::vector<int> q;
  for (int done = 0; done < log_r;) {
    const int step = std::min(detail::max_thread_radix_log2, log_r - done);
    q.push_back(step);
    done += step;
  }
  return q;
}

detail::pass_geometry geometry(const fft_plan& plan, const fft_pass& pass) {
  return {plan.log2_n, pass.radix_log2, pass.ns_log2, pass.column_log2, pass.batch_log2,
          plan.batch};
}

using cd = std::complex<double>;

cd unit_root(int sign, long long num, long long den) {
  const double a = sign * 2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(a), std::sin(a)};
}

//! Radix-2 Stockham FFT of v (2^q points) in place; same order as the device registers.
void small_fft(std::vector<cd>& v, int sign) {
  const int n = static_cast<int>(v.size());
  std::vector<cd> t(v.size());
  for (int ns = 1; ns < n; ns *= 2) {
    for (int j = 0; j < n / 2; ++j) {
      const int k = j % ns;
      const cd a = v[j];
      const cd b = v[j + n / 2] * unit_root(sign, k, 2 * ns);
      const int d = (j / ns) * 2 * ns + k;
      t[d] = a + b;
      t[d + ns] = a - b;
    }
    v.swap(t);
  }
}

}  // namespace

long long fft_plan::max_tiles() const {
  long long m = 0;
  for (const auto& p : passes) m = std::max(m, p.tiles);
  return m;
}

fft_plan make_fft_plan(int log2_n, long long batch, precision prec, direction dir,
                       bool normalize_inverse) {
  if (log2_n < 1 || log2_n > 27)
    throw usage_error("fft: size 2^" + std::to_string(log2_n) + " outside 2^1 .. 2^27");
  if (batch < 1) throw usage_error("fft: batch must be >= 1");
  const detail::fft_policy pol = policy_of(prec);
  fft_plan plan;
  plan.log2_n = log2_n;
  plan.batch = batch;
  plan.prec = prec;
  plan.dir = dir;
  plan.normalize_inverse = normalize_inverse;
  plan.tile_log2 = pol.tile_log2;
  plan.block_threads = pol.block_threads;
  if (log2_n <= pol.tile_log2) {
    // One pass: whole transforms in a tile, 2^bat transforms per tile.
    fft_pass p;
    p.radix_log2 = log2_n;
    int bat = pol.tile_log2 - log2_n;
    while (bat > 0 && (1LL << (bat - 1)) >= batch) --bat;  // no more slots than transforms
    p.batch_log2 = bat;
    p.tiles = (batch + (1LL << bat) - 1) >> bat;
    p.inner_radix_log2 = inner_split(log2_n);
    plan.passes.push_back(p);
    return plan;
  }
  const int max_r = pol.tile_log2 - pol.column_log2;
  const int count = (log2_n + max_r - 1) / max_r;
  int ns = 0;
  for (int i = 0; i < count; ++i) {
    fft_pass p;
    p.radix_log2 = log2_n / count + (i < log2_n % count ? 1 : 0);
    p.ns_log2 = ns;
    p.column_log2 = pol.column_log2;
    p.tiles = batch << (log2_n - p.radix_log2 - pol.column_log2);
    p.inner_radix_log2 = inner_split(p.radix_log2);
    ns += p.radix_log2;
    plan.passes.push_back(p);
  }
  return plan;
}

int default_blocks(const fft_plan& plan, int cap) {
  if (cap < 1) throw usage_error("fft: the persistent kernel cannot be resident (cap 0)");
  const long long tiles = plan.max_tiles();
  const long long waves = (tiles + cap - 1) / cap;
  return static_cast<int>((tiles + waves - 1) / waves);
}

std::size_t tile_smem_bytes(const fft_plan& plan) {
  int points = 0;
  for (const auto& p : plan.passes) points = std::max(points, detail::tile_smem_points(geometry(plan, p)));
  return static_cast<std::size_t>(points) * plan.element_bytes();
}

void reference_execute(const fft_plan& plan, std::vector<cd>& data) {
  const long long total = plan.batch << plan.log2_n;
  if (static_cast<long long>(data.size()) != total)
    throw usage_error("fft reference: data holds " + std::to_string(data.size()) + " points, plan needs " +
                      std::to_string(total));
  const int sign = plan.dir == direction::forward ? -1 : 1;
  std::vector<cd> src = data;
  std::vector<cd> dst(data.size());
  for (std::size_t pi = 0; pi < plan.passes.size(); ++pi) {
    const fft_pass& pass = plan.passes[pi];
    const detail::pass_geometry g = geometry(plan, pass);
    const int stride = detail::seq_stride(g.log_r);
    std::vector<cd> sm(static_cast<std::size_t>(detail::tile_smem_points(g)));
    const bool last = pi + 1 == plan.passes.size();
    const double scale = last && plan.dir == direction::inverse && plan.normalize_inverse
                             ? 1.0 / static_cast<double>(plan.n())
                             : 1.0;
    for (long long t = 0; t < pass.tiles; ++t) {
      const detail::tile_origin o = detail::tile_start(g, t);
      const int elems = o.batches << (g.col_log + g.log_r);
      for (int e = 0; e < elems; ++e) {
        const detail::load_slot s = detail::load_map(g, o, e);
        sm[detail::smem_index(s.seq, s.r, stride)] =
            src[s.src] * unit_root(sign, s.exponent, 1LL << (g.ns_log + g.log_r));
      }
      const int seqs = o.batches << g.col_log;
      int ns_log = 0;
      for (const int q : pass.inner_radix_log2) {
        std::vector<cd> out(sm.size());
        for (int s = 0; s < seqs; ++s) {
          for (int j = 0; j < (1 << (g.log_r - q)); ++j) {
            std::vector<cd> v(1u << q);
            const long long k = j & ((1 << ns_log) - 1);
            for (int i = 0; i < (1 << q); ++i)
              v[i] = sm[detail::smem_index(s, detail::inner_read(j, i, g.log_r, q), stride)] *
                     unit_root(sign, i * k, 1LL << (ns_log + q));
            small_fft(v, sign);
            for (int i = 0; i < (1 << q); ++i)
              out[detail::smem_index(s, detail::inner_write(j, i, ns_log, q), stride)] = v[i];
          }
        }
        sm.swap(out);
        ns_log += q;
      }
      for (int e = 0; e < elems; ++e) {
        const detail::store_slot s = detail::store_map(g, o, e);
        dst[s.dst] = sm[detail::smem_index(s.seq, s.r, stride)] * scale;
      }
    }
    src.swap(dst);
  }
  data = src;
}

std::vector<cd> naive_dft(const std::vector<cd>& x, direction dir) {
  const int sign = dir == direction::forward ? -1 : 1;
  const long long n = static_cast<long long>(x.size());
  std::vector<cd> roots(x.size());
  for (long long m = 0; m < n; ++m) roots[m] = unit_root(sign, m, n);
  std::vector<cd> y(x.size());
  for (long long k = 0; k < n; ++k) {
    cd acc = 0;
    for (long long i = 0; i < n; ++i) acc += x[i] * roots[(i * k) % n];
    y[k] = acc;
  }
  return y;
}

}  // namespace swat::fft
