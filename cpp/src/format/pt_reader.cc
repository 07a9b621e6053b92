// .pt single-tensor reader: zip directory -> data.pkl (a tiny pickle VM) -> data/<key>.
//
// Every offset and length comes from the file, so every bounds check is written as
// `off <= size && len <= size - off` (never `off + len <= size`, which wraps for offsets near
// 2^64 and once let a crafted zip64 local-header offset read before the buffer).
#include "msprobe/format/pt_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>

namespace msprobe {

namespace {

[[noreturn]] void unsupported(const std::string& why) { throw PtUnsupported(why); }

// [off, off + len) lies inside a buffer of `size` bytes, without overflow.
inline bool in_bounds(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

// Little-endian reads from a bounded buffer.
class Bytes {
 public:
  Bytes(const unsigned char* data, size_t size) : d_(data), n_(size) {}
  size_t size() const { return n_; }
  const unsigned char* at(uint64_t off) const { return d_ + off; }
  bool has(uint64_t off, uint64_t len) const { return in_bounds(off, len, n_); }
  uint64_t le(uint64_t off, int width, const char* what) const {
    if (!has(off, (uint64_t)width)) unsupported(what);
    uint64_t v = 0;
    for (int i = width; i-- > 0;) v = v << 8 | d_[off + (uint64_t)i];
    return v;
  }
  uint16_t u16(uint64_t off, const char* what = "truncated zip") const { return (uint16_t)le(off, 2, what); }
  uint32_t u32(uint64_t off, const char* what = "truncated zip") const { return (uint32_t)le(off, 4, what); }
  uint64_t u64(uint64_t off, const char* what = "truncated zip") const { return le(off, 8, what); }
  std::string_view view(uint64_t off, uint64_t len) const {
    if (!has(off, len)) unsupported("truncated zip");
    return std::string_view((const char*)d_ + off, (size_t)len);
  }

 private:
  const unsigned char* d_;
  size_t n_;
};

struct Entry {
  uint64_t offset = 0;  // of the data
  uint64_t size = 0;
};

constexpr uint32_t kEocdSig = 0x06054b50, kEocd64LocatorSig = 0x07064b50, kEocd64Sig = 0x06064b50;
constexpr uint32_t kCentralSig = 0x02014b50, kLocalSig = 0x04034b50;

// Stored (uncompressed) entries of the archive by name.
std::map<std::string, Entry, std::less<>> zip_entries(const Bytes& z) {
  const uint64_t n = z.size();
  if (n < 22) unsupported("not a zip archive");
  uint64_t eocd = UINT64_MAX;
  const uint64_t lo = n > 22 + 65535 ? n - 22 - 65535 : 0;
  for (uint64_t p = n - 22 + 1; p-- > lo;) {
    if (z.u32(p) == kEocdSig) {
      eocd = p;
      break;
    }
  }
  if (eocd == UINT64_MAX) unsupported("not a zip archive (no end of central directory)");
  uint64_t count = z.u16(eocd + 10);
  uint64_t cd_off = z.u32(eocd + 16);
  if ((cd_off == 0xffffffffu || count == 0xffff) && eocd >= 20 && z.u32(eocd - 20) == kEocd64LocatorSig) {
    const uint64_t e64 = z.u64(eocd - 20 + 8);
    if (!z.has(e64, 56) || z.u32(e64) != kEocd64Sig) unsupported("bad zip64 directory");
    count = z.u64(e64 + 32);
    cd_off = z.u64(e64 + 48);
  }
  std::map<std::string, Entry, std::less<>> out;
  uint64_t p = cd_off;
  for (uint64_t i = 0; i < count; ++i) {
    if (!z.has(p, 46) || z.u32(p) != kCentralSig) unsupported("bad zip central directory");
    const uint16_t method = z.u16(p + 10);
    uint64_t csize = z.u32(p + 20), usize = z.u32(p + 24);
    const uint16_t nlen = z.u16(p + 28), xlen = z.u16(p + 30), clen = z.u16(p + 32);
    uint64_t local = z.u32(p + 42);
    const uint64_t record = 46 + (uint64_t)nlen + xlen + clen;
    if (!z.has(p, record)) unsupported("bad zip central directory");
    std::string name(z.view(p + 46, nlen));
    // zip64 extra field: the 0xffffffff values follow in order usize, csize, offset, each only
    // when present in the field's own length.
    const uint64_t xend = p + 46 + nlen + xlen;
    for (uint64_t x = p + 46 + nlen; x + 4 <= xend;) {
      const uint16_t id = z.u16(x), len = z.u16(x + 2);
      if (len > xend - x - 4) unsupported("bad zip extra field in " + name);
      if (id == 0x0001) {
        uint64_t q = x + 4;
        const uint64_t qend = q + len;
        auto next = [&]() {
          if (qend - q < 8) unsupported("bad zip64 extra field in " + name);
          const uint64_t v = z.u64(q);
          q += 8;
          return v;
        };
        if (usize == 0xffffffffu) usize = next();
        if (csize == 0xffffffffu) csize = next();
        if (local == 0xffffffffu) local = next();
      }
      x += 4 + (uint64_t)len;
    }
    if (method != 0 || csize != usize) unsupported("compressed zip entry " + name);
    if (!z.has(local, 30) || z.u32(local) != kLocalSig) unsupported("bad zip local header of " + name);
    const uint64_t header = 30 + (uint64_t)z.u16(local + 26) + z.u16(local + 28);
    if (!z.has(local, header)) unsupported("bad zip local header of " + name);
    const uint64_t data = local + header;
    if (!z.has(data, usize)) unsupported("truncated zip entry " + name);
    out[name] = Entry{data, usize};
    p += record;
  }
  return out;
}

// ---- the pickle subset ---------------------------------------------------------------------
struct Value;
using ValuePtr = std::shared_ptr<Value>;
struct Value {
  enum Kind { kNone, kBool, kInt, kStr, kTuple, kGlobal, kPersId, kDict, kTensor, kMark } kind = kNone;
  int64_t i = 0;
  int depth = 0;
  std::string s, s2;  // str / global module, name
  std::vector<ValuePtr> items;
  PtTensor tensor;
};

ValuePtr make(Value::Kind k) {
  auto v = std::make_shared<Value>();
  v->kind = k;
  return v;
}

DType storage_dtype(const std::string& cls) {
  static const std::map<std::string, DType> m = {{"FloatStorage", DType::kFloat32},
                                                 {"DoubleStorage", DType::kFloat64},
                                                 {"HalfStorage", DType::kFloat16},
                                                 {"BFloat16Storage", DType::kBFloat16},
                                                 {"LongStorage", DType::kInt64},
                                                 {"IntStorage", DType::kInt32},
                                                 {"ShortStorage", DType::kInt16},
                                                 {"CharStorage", DType::kInt8},
                                                 {"ByteStorage", DType::kUInt8},
                                                 {"BoolStorage", DType::kBool},
                                                 {"ComplexFloatStorage", DType::kComplex64},
                                                 {"ComplexDoubleStorage", DType::kComplex128}};
  auto it = m.find(cls);
  if (it == m.end()) unsupported("storage class torch." + cls);
  return it->second;
}

std::vector<int64_t> int_tuple(const ValuePtr& v, const char* what) {
  if (v->kind != Value::kTuple) unsupported(std::string(what) + " is not a tuple");
  std::vector<int64_t> out;
  for (const auto& x : v->items) {
    if (x->kind != Value::kInt) unsupported(std::string(what) + " holds a non-integer");
    out.push_back(x->i);
  }
  return out;
}

ValuePtr run_pickle(std::string_view p) {
  std::vector<ValuePtr> stack;
  std::vector<size_t> marks;
  std::map<uint32_t, ValuePtr> memo;
  size_t i = 0;
  auto need = [&](size_t n) {
    if (!in_bounds(i, n, p.size())) unsupported("truncated pickle");
  };
  auto pop = [&]() {
    if (stack.empty()) unsupported("pickle stack underflow");
    ValuePtr v = stack.back();
    stack.pop_back();
    return v;
  };
  auto top = [&]() {
    if (stack.empty()) unsupported("pickle stack underflow");
    return stack.back();
  };
  auto from_mark = [&]() {
    if (marks.empty()) unsupported("pickle without mark");
    const size_t m = marks.back();
    marks.pop_back();
    if (m > stack.size()) unsupported("pickle mark below the stack");
    std::vector<ValuePtr> items(stack.begin() + (long)m, stack.end());
    stack.resize(m);
    return items;
  };
  auto line = [&]() {
    const size_t e = p.find('\n', i);
    if (e == std::string_view::npos) unsupported("truncated pickle");
    std::string s(p.substr(i, e - i));
    i = e + 1;
    return s;
  };
  auto tuple = [&](std::vector<ValuePtr> items) {
    ValuePtr t = make(Value::kTuple);
    // Bounded nesting: a tensor needs 3 levels; deep chains would only recurse on destruction.
    for (const auto& x : items) t->depth = std::max(t->depth, x->depth + 1);
    if (t->depth > 16) unsupported("pickle nested too deeply");
    t->items = std::move(items);
    return t;
  };
  auto le = [&](size_t n) {
    need(n);
    uint64_t v = 0;
    for (size_t k = n; k-- > 0;) v = v << 8 | (unsigned char)p[i + k];
    i += n;
    return v;
  };
  while (true) {
    need(1);
    const unsigned char op = (unsigned char)p[i++];
    switch (op) {
      case 0x80:
        need(1);
        ++i;
        break;                                         // PROTO
      case 0x95: le(8); break;                         // FRAME
      case '(': marks.push_back(stack.size()); break;  // MARK
      case 'c': {                                      // GLOBAL
        ValuePtr g = make(Value::kGlobal);
        g->s = line();
        g->s2 = line();
        stack.push_back(g);
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        ValuePtr name = pop(), mod = pop();
        if (name->kind != Value::kStr || mod->kind != Value::kStr) unsupported("bad STACK_GLOBAL");
        ValuePtr g = make(Value::kGlobal);
        g->s = mod->s;
        g->s2 = name->s;
        stack.push_back(g);
        break;
      }
      case 'X': {  // BINUNICODE
        const size_t n = (size_t)le(4);
        need(n);
        ValuePtr s = make(Value::kStr);
        s->s = std::string(p.substr(i, n));
        i += n;
        stack.push_back(s);
        break;
      }
      case 0x8c: {  // SHORT_BINUNICODE
        const size_t n = (size_t)le(1);
        need(n);
        ValuePtr s = make(Value::kStr);
        s->s = std::string(p.substr(i, n));
        i += n;
        stack.push_back(s);
        break;
      }
      case 'K': {
        ValuePtr v = make(Value::kInt);
        v->i = (int64_t)le(1);
        stack.push_back(v);
        break;
      }
      case 'M': {
        ValuePtr v = make(Value::kInt);
        v->i = (int64_t)le(2);
        stack.push_back(v);
        break;
      }
      case 'J': {
        ValuePtr v = make(Value::kInt);
        v->i = (int32_t)(uint32_t)le(4);
        stack.push_back(v);
        break;
      }
      case 0x8a: {  // LONG1
        const size_t n = (size_t)le(1);
        if (n > 8) unsupported("integer too large");
        need(n);
        uint64_t u = 0;
        for (size_t k = n; k-- > 0;) u = u << 8 | (unsigned char)p[i + k];
        if (n > 0 && n < 8 && ((unsigned char)p[i + n - 1] & 0x80)) u |= ~0ULL << (8 * n);
        i += n;
        ValuePtr v = make(Value::kInt);
        v->i = (int64_t)u;
        stack.push_back(v);
        break;
      }
      case 0x88:
      case 0x89: {  // NEWTRUE / NEWFALSE
        ValuePtr v = make(Value::kBool);
        v->i = op == 0x88;
        stack.push_back(v);
        break;
      }
      case 'N': stack.push_back(make(Value::kNone)); break;
      case ')': stack.push_back(tuple({})); break;
      case 't': stack.push_back(tuple(from_mark())); break;
      case 0x85: {
        auto a = pop();
        stack.push_back(tuple({a}));
        break;
      }
      case 0x86: {
        auto b = pop(), a = pop();
        stack.push_back(tuple({a, b}));
        break;
      }
      case 0x87: {
        auto c = pop(), b = pop(), a = pop();
        stack.push_back(tuple({a, b, c}));
        break;
      }
      case '}': stack.push_back(make(Value::kDict)); break;   // EMPTY_DICT
      case 'q': memo[(uint32_t)le(1)] = top(); break;         // BINPUT
      case 'r': memo[(uint32_t)le(4)] = top(); break;         // LONG_BINPUT
      case 0x94: memo[(uint32_t)memo.size()] = top(); break;  // MEMOIZE
      case 'h':
      case 'j': {  // BINGET / LONG_BINGET
        auto it = memo.find((uint32_t)le(op == 'h' ? 1 : 4));
        if (it == memo.end()) unsupported("bad memo reference");
        stack.push_back(it->second);
        break;
      }
      case 'Q': {  // BINPERSID
        ValuePtr id = pop();
        if (id->kind != Value::kTuple || id->items.size() != 5 || id->items[0]->kind != Value::kStr ||
            id->items[0]->s != "storage" || id->items[1]->kind != Value::kGlobal ||
            id->items[1]->s != "torch" || id->items[2]->kind != Value::kStr) {
          unsupported("persistent id other than a typed storage");
        }
        ValuePtr v = make(Value::kPersId);
        v->items = id->items;
        v->depth = id->depth;
        stack.push_back(v);
        break;
      }
      case 'R': {  // REDUCE
        ValuePtr args = pop(), fn = pop();
        if (fn->kind != Value::kGlobal || args->kind != Value::kTuple) unsupported("bad REDUCE");
        if (fn->s == "collections" && fn->s2 == "OrderedDict" && args->items.empty()) {
          stack.push_back(make(Value::kDict));
          break;
        }
        if (fn->s != "torch._utils" || fn->s2 != "_rebuild_tensor_v2") {
          unsupported("callable " + fn->s + "." + fn->s2);
        }
        const auto& a = args->items;
        if (a.size() < 6 || a[0]->kind != Value::kPersId || a[1]->kind != Value::kInt ||
            a[4]->kind != Value::kBool || a[5]->kind != Value::kDict) {
          unsupported("unexpected _rebuild_tensor_v2 arguments");
        }
        if (a.size() > 6 && a[6]->kind != Value::kDict) unsupported("tensor metadata");
        ValuePtr t = make(Value::kTensor);
        t->tensor.dtype = storage_dtype(a[0]->items[1]->s2);
        t->tensor.storage_offset = a[1]->i;
        t->tensor.shape = int_tuple(a[2], "size");
        t->tensor.stride = int_tuple(a[3], "stride");
        t->tensor.requires_grad = a[4]->i != 0;
        t->s = a[0]->items[2]->s;  // storage key
        stack.push_back(t);
        break;
      }
      case 'b': {  // BUILD (state of a dict: ignored)
        ValuePtr state = pop();
        if (top()->kind != Value::kDict || state->kind != Value::kDict) unsupported("BUILD");
        break;
      }
      case '.': {  // STOP
        return pop();
      }
      default: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "pickle opcode 0x%02x", op);
        unsupported(buf);
      }
    }
  }
}

}  // namespace

PtTensor parse_pt(const unsigned char* bytes, size_t size) {
  const Bytes z(bytes, size);
  const auto entries = zip_entries(z);
  std::string prefix;
  for (const auto& kv : entries) {
    const std::string& n = kv.first;
    if (n.size() >= 9 && n.compare(n.size() - 9, 9, "/data.pkl") == 0) {
      prefix = n.substr(0, n.size() - 8);
      break;
    }
  }
  if (prefix.empty()) unsupported("no data.pkl in the archive");
  auto bo = entries.find(prefix + "byteorder");
  if (bo != entries.end() && z.view(bo->second.offset, bo->second.size) != "little") {
    unsupported("big-endian data");
  }
  const Entry& pkl = entries.at(prefix + "data.pkl");
  ValuePtr v = run_pickle(z.view(pkl.offset, pkl.size));
  if (v->kind != Value::kTensor) unsupported("the file does not hold a single tensor");
  PtTensor t = std::move(v->tensor);
  auto data = entries.find(prefix + "data/" + v->s);
  if (data == entries.end()) unsupported("storage data/" + v->s + " missing");
  const size_t item = dtype_size(t.dtype);
  if (t.shape.size() != t.stride.size()) unsupported("size and stride differ in length");
  // Bounds: the largest element reached must lie in the storage.
  if (t.storage_offset < 0 || t.storage_offset > INT64_MAX / 16) unsupported("bad storage offset");
  int64_t last = t.storage_offset;
  bool empty = false;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] < 0 || t.stride[d] < 0) unsupported("negative size or stride");
    if (t.shape[d] == 0) {
      empty = true;
    } else {
      __int128 reach = (__int128)(t.shape[d] - 1) * t.stride[d] + last;
      if (reach > (__int128)INT64_MAX / 16) unsupported("size or stride too large");
      last = (int64_t)reach;
    }
  }
  const uint64_t storage_bytes = data->second.size;
  if (storage_bytes % item != 0 || (!empty && (uint64_t)(last + 1) > storage_bytes / item)) {
    unsupported("the storage is smaller than the tensor");
  }
  t.storage = z.at(data->second.offset);
  t.storage_bytes = (size_t)storage_bytes;
  return t;
}

}  // namespace msprobe
