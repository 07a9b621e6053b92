// .pt single-tensor reader: zip directory -> data.pkl (a tiny pickle VM) -> data/<key>.
#include "msprobe/runut/pt_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>

namespace msprobe {
namespace runut {

namespace {

[[noreturn]] void unsupported(const std::string& why) { throw PtUnsupported(why); }

uint16_t u16(const std::string& s, size_t at) {
  if (at + 2 > s.size()) unsupported("truncated zip");
  return (uint16_t)((unsigned char)s[at] | (unsigned char)s[at + 1] << 8);
}
uint32_t u32(const std::string& s, size_t at) {
  if (at + 4 > s.size()) unsupported("truncated zip");
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | (unsigned char)s[at + i];
  return v;
}
uint64_t u64(const std::string& s, size_t at) {
  return (uint64_t)u32(s, at) | (uint64_t)u32(s, at + 4) << 32;
}

struct Entry {
  uint64_t offset = 0;  // of the data
  uint64_t size = 0;
};

// Stored (uncompressed) entries of the archive by name.
std::map<std::string, Entry> zip_entries(const std::string& z) {
  if (z.size() < 22) unsupported("not a zip archive");
  size_t eocd = std::string::npos;
  const size_t lo = z.size() > 22 + 65535 ? z.size() - 22 - 65535 : 0;
  for (size_t p = z.size() - 22 + 1; p-- > lo;) {
    if (u32(z, p) == 0x06054b50) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::string::npos) unsupported("not a zip archive (no end of central directory)");
  uint64_t count = u16(z, eocd + 10);
  uint64_t cd_off = u32(z, eocd + 16);
  if ((cd_off == 0xffffffffu || count == 0xffff) && eocd >= 20 && u32(z, eocd - 20) == 0x07064b50) {
    const uint64_t e64 = u64(z, eocd - 20 + 8);
    if (e64 + 56 > z.size() || u32(z, (size_t)e64) != 0x06064b50) unsupported("bad zip64 directory");
    count = u64(z, (size_t)e64 + 32);
    cd_off = u64(z, (size_t)e64 + 48);
  }
  std::map<std::string, Entry> out;
  size_t p = (size_t)cd_off;
  for (uint64_t i = 0; i < count; ++i) {
    if (p + 46 > z.size() || u32(z, p) != 0x02014b50) unsupported("bad zip central directory");
    const uint16_t method = u16(z, p + 10);
    uint64_t csize = u32(z, p + 20), usize = u32(z, p + 24);
    const uint16_t nlen = u16(z, p + 28), xlen = u16(z, p + 30), clen = u16(z, p + 32);
    uint64_t local = u32(z, p + 42);
    if (p + 46 + nlen + xlen > z.size()) unsupported("bad zip central directory");
    std::string name = z.substr(p + 46, nlen);
    // zip64 extra field: the 0xffffffff values follow in order usize, csize, offset.
    for (size_t x = p + 46 + nlen; x + 4 <= p + 46 + nlen + xlen;) {
      const uint16_t id = u16(z, x), len = u16(z, x + 2);
      if (id == 0x0001) {
        size_t q = x + 4;
        if (usize == 0xffffffffu) { usize = u64(z, q); q += 8; }
        if (csize == 0xffffffffu) { csize = u64(z, q); q += 8; }
        if (local == 0xffffffffu) { local = u64(z, q); q += 8; }
      }
      x += 4 + len;
    }
    if (method != 0 || csize != usize) unsupported("compressed zip entry " + name);
    if (local + 30 > z.size() || u32(z, (size_t)local) != 0x04034b50) unsupported("bad zip local header");
    const uint64_t data = local + 30 + u16(z, (size_t)local + 26) + u16(z, (size_t)local + 28);
    if (data + usize > z.size()) unsupported("truncated zip entry " + name);
    out[name] = Entry{data, usize};
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

// ---- the pickle subset ---------------------------------------------------------------------
struct Value;
using ValuePtr = std::shared_ptr<Value>;
struct Value {
  enum Kind { kNone, kBool, kInt, kStr, kTuple, kGlobal, kPersId, kDict, kTensor, kMark } kind = kNone;
  int64_t i = 0;
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
  static const std::map<std::string, DType> m = {
      {"FloatStorage", DType::kFloat32},   {"DoubleStorage", DType::kFloat64},
      {"HalfStorage", DType::kFloat16},    {"BFloat16Storage", DType::kBFloat16},
      {"LongStorage", DType::kInt64},      {"IntStorage", DType::kInt32},
      {"ShortStorage", DType::kInt16},     {"CharStorage", DType::kInt8},
      {"ByteStorage", DType::kUInt8},      {"BoolStorage", DType::kBool},
      {"ComplexFloatStorage", DType::kComplex64}, {"ComplexDoubleStorage", DType::kComplex128}};
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

ValuePtr run_pickle(const std::string& p) {
  std::vector<ValuePtr> stack;
  std::vector<size_t> marks;
  std::map<uint32_t, ValuePtr> memo;
  size_t i = 0;
  auto need = [&](size_t n) {
    if (i + n > p.size()) unsupported("truncated pickle");
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
    std::vector<ValuePtr> items(stack.begin() + (long)m, stack.end());
    stack.resize(m);
    return items;
  };
  auto line = [&]() {
    const size_t e = p.find('\n', i);
    if (e == std::string::npos) unsupported("truncated pickle");
    std::string s = p.substr(i, e - i);
    i = e + 1;
    return s;
  };
  auto tuple = [&](std::vector<ValuePtr> items) {
    ValuePtr t = make(Value::kTuple);
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
      case 0x80: need(1); ++i; break;                          // PROTO
      case 0x95: le(8); break;                                 // FRAME
      case '(': marks.push_back(stack.size()); break;         // MARK
      case 'c': {                                              // GLOBAL
        ValuePtr g = make(Value::kGlobal);
        g->s = line();
        g->s2 = line();
        stack.push_back(g);
        break;
      }
      case 0x93: {                                             // STACK_GLOBAL
        ValuePtr name = pop(), mod = pop();
        if (name->kind != Value::kStr || mod->kind != Value::kStr) unsupported("bad STACK_GLOBAL");
        ValuePtr g = make(Value::kGlobal);
        g->s = mod->s;
        g->s2 = name->s;
        stack.push_back(g);
        break;
      }
      case 'X': {                                              // BINUNICODE
        const size_t n = (size_t)le(4);
        need(n);
        ValuePtr s = make(Value::kStr);
        s->s = p.substr(i, n);
        i += n;
        stack.push_back(s);
        break;
      }
      case 0x8c: {                                             // SHORT_BINUNICODE
        const size_t n = (size_t)le(1);
        need(n);
        ValuePtr s = make(Value::kStr);
        s->s = p.substr(i, n);
        i += n;
        stack.push_back(s);
        break;
      }
      case 'K': { ValuePtr v = make(Value::kInt); v->i = (int64_t)le(1); stack.push_back(v); break; }
      case 'M': { ValuePtr v = make(Value::kInt); v->i = (int64_t)le(2); stack.push_back(v); break; }
      case 'J': { ValuePtr v = make(Value::kInt); v->i = (int32_t)(uint32_t)le(4); stack.push_back(v); break; }
      case 0x8a: {                                             // LONG1
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
      case 0x88: case 0x89: {                                  // NEWTRUE / NEWFALSE
        ValuePtr v = make(Value::kBool);
        v->i = op == 0x88;
        stack.push_back(v);
        break;
      }
      case 'N': stack.push_back(make(Value::kNone)); break;
      case ')': stack.push_back(tuple({})); break;
      case 't': stack.push_back(tuple(from_mark())); break;
      case 0x85: { auto a = pop(); stack.push_back(tuple({a})); break; }
      case 0x86: { auto b = pop(), a = pop(); stack.push_back(tuple({a, b})); break; }
      case 0x87: { auto c = pop(), b = pop(), a = pop(); stack.push_back(tuple({a, b, c})); break; }
      case '}': stack.push_back(make(Value::kDict)); break;   // EMPTY_DICT
      case 'q': memo[(uint32_t)le(1)] = top(); break;          // BINPUT
      case 'r': memo[(uint32_t)le(4)] = top(); break;          // LONG_BINPUT
      case 0x94: memo[(uint32_t)memo.size()] = top(); break;   // MEMOIZE
      case 'h': case 'j': {                                    // BINGET / LONG_BINGET
        auto it = memo.find((uint32_t)le(op == 'h' ? 1 : 4));
        if (it == memo.end()) unsupported("bad memo reference");
        stack.push_back(it->second);
        break;
      }
      case 'Q': {                                              // BINPERSID
        ValuePtr id = pop();
        if (id->kind != Value::kTuple || id->items.size() != 5 || id->items[0]->kind != Value::kStr ||
            id->items[0]->s != "storage" || id->items[1]->kind != Value::kGlobal ||
            id->items[1]->s != "torch" || id->items[2]->kind != Value::kStr) {
          unsupported("persistent id other than a typed storage");
        }
        ValuePtr v = make(Value::kPersId);
        v->items = id->items;
        stack.push_back(v);
        break;
      }
      case 'R': {                                              // REDUCE
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
      case 'b': {                                              // BUILD (state of a dict: ignored)
        ValuePtr state = pop();
        if (top()->kind != Value::kDict || state->kind != Value::kDict) unsupported("BUILD");
        break;
      }
      case '.': {                                              // STOP
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

PtTensor read_pt_bytes(const std::string& z) {
  const std::map<std::string, Entry> entries = zip_entries(z);
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
  if (bo != entries.end() && z.compare(bo->second.offset, bo->second.size, "little") != 0) {
    unsupported("big-endian data");
  }
  const Entry& pkl = entries.at(prefix + "data.pkl");
  ValuePtr v = run_pickle(z.substr(pkl.offset, pkl.size));
  if (v->kind != Value::kTensor) unsupported("the file does not hold a single tensor");
  PtTensor t = std::move(v->tensor);
  auto data = entries.find(prefix + "data/" + v->s);
  if (data == entries.end()) unsupported("storage data/" + v->s + " missing");
  const size_t item = dtype_size(t.dtype);
  if (t.shape.size() != t.stride.size()) unsupported("size and stride differ in length");
  // Bounds: the largest element reached must lie in the storage.
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
  if (t.storage_offset < 0 || t.storage_offset > INT64_MAX / 16 || data->second.size % item != 0 ||
      (!empty && (uint64_t)(last + 1) * item > data->second.size)) {
    unsupported("the storage is smaller than the tensor");
  }
  t.storage.assign(z, (size_t)data->second.offset, (size_t)data->second.size);
  return t;
}

PtTensor read_pt_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) unsupported("cannot open " + path);
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    unsupported("not a regular file: " + path);
  }
  std::string z((size_t)st.st_size, '\0');
  size_t got = 0;
  while (got < z.size()) {
    ssize_t n = ::read(fd, &z[got], z.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  ::close(fd);
  if (got != z.size()) unsupported("short read of " + path);
  return read_pt_bytes(z);
}

}  // namespace runut
}  // namespace msprobe
