// Deferred values in entry text: a value read later (MindSpore's asynchronous kernels, device
// statistics) is written as the marker "\x01{id}\x01" and replaced by its JSON text once read.
// JsonWriter escapes control characters in strings, so the byte never occurs otherwise.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

namespace msprobe {

constexpr char kDeferredMark = '\x01';

std::string deferred_marker(uint64_t id);
inline bool holds_deferred(const std::string& text) { return text.find(kDeferredMark) != std::string::npos; }
// Replaces the markers whose text is in `rendered` (taking it from there); returns whether no
// marker is left.
bool substitute_deferred(std::string& text, std::unordered_map<uint64_t, std::string>& rendered);
// The text with every marker written as null (values never read: their call had no post hook).
std::string null_deferred(const std::string& text);

}  // namespace msprobe
