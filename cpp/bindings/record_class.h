// A plain C++ result struct bound as a Python class: attributes named as its fields, a repr that
// names them, == by value, and pickling (per-rank reports travel to worker processes and Dask
// workers). Every report crosses the boundary this way, typed, never as a hand-built dict.
//
//   RecordClass<MergeReport>(m, "MergeReport", "doc")
//       .ro("path", &MergeReport::path)              // attribute + pickled state
//       .prop("warnings", [](const MergeReport& r) {...})   // computed attribute only
//       .state("rank", &X::rank)                     // pickled only (shown through a prop)
//       .field("status", get, set);                  // shown and pickled through functions
// The state is the tuple of the registered fields in order; a default-constructible T is
// rebuilt from it by __setstate__.
#pragma once

#include <nanobind/nanobind.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace msprobe {

namespace nb = nanobind;

template <class T>
class RecordClass {
 public:
  RecordClass(nb::handle scope, const char* name, const char* doc)
      : cls_(scope, name, doc), fields_(std::make_shared<std::vector<Field>>()) {
    cls_.def(nb::init<>());
    auto fields = fields_;
    cls_.def("__getstate__", [fields](const T& t) { return state_of(*fields, t); });
    cls_.def("__setstate__", [fields](T& t, const nb::tuple& state) {
      new (&t) T();
      if (state.size() != fields->size()) throw nb::value_error("pickled state does not match this class");
      for (size_t i = 0; i < fields->size(); ++i) (*fields)[i].set(t, state[i]);
    });
    cls_.def(
        "__eq__",
        [fields](const T& a, nb::handle b) {
          return nb::isinstance<T>(b) && state_of(*fields, a).equal(state_of(*fields, nb::cast<const T&>(b)));
        },
        nb::is_operator());
    cls_.def("__repr__", [fields, type = std::string(name)](const T& t) {
      std::string out = type + "(";
      for (size_t i = 0; i < fields->size(); ++i) {
        if (!(*fields)[i].shown) continue;
        if (out.back() != '(') out += ", ";
        out += (*fields)[i].name + "=" + nb::cast<std::string>(nb::repr((*fields)[i].get(t)));
      }
      return out + ")";
    });
  }

  // A read-only attribute that is also part of the pickled state.
  template <class M>
  RecordClass& ro(const char* name, M T::*member, const char* doc = "") {
    cls_.def_ro(name, member, doc);
    add(name, member, true);
    return *this;
  }

  // A writable attribute (set by the Python caller, e.g. a rank's error line).
  template <class M>
  RecordClass& rw(const char* name, M T::*member, const char* doc = "") {
    cls_.def_rw(name, member, doc);
    add(name, member, true);
    return *this;
  }

  // Pickled state that Python sees through a prop.
  template <class M>
  RecordClass& state(const char* name, M T::*member) {
    add(name, member, false);
    return *this;
  }

  // An attribute shown through `get` and pickled as what `get` returns (an enum as its name).
  template <class Get, class Set>
  RecordClass& field(const char* name, Get get, Set set, const char* doc = "") {
    cls_.def_prop_ro(name, get, doc);
    fields_->push_back({name, true, [get](const T& t) { return nb::cast(get(t)); }, set});
    return *this;
  }

  template <class Getter>
  RecordClass& prop(const char* name, Getter&& getter, const char* doc = "") {
    cls_.def_prop_ro(name, std::forward<Getter>(getter), doc);
    return *this;
  }

  nb::class_<T>& cls() { return cls_; }

 private:
  struct Field {
    std::string name;
    bool shown;
    std::function<nb::object(const T&)> get;
    std::function<void(T&, nb::handle)> set;
  };

  template <class M>
  void add(const char* name, M T::*member, bool shown) {
    fields_->push_back({name, shown,
                        [member](const T& t) { return nb::cast(t.*member, nb::rv_policy::copy); },
                        [member](T& t, nb::handle h) { t.*member = nb::cast<M>(h); }});
  }

  static nb::tuple state_of(const std::vector<Field>& fields, const T& t) {
    nb::list l;
    for (const Field& f : fields) l.append(f.get(t));
    return nb::tuple(l);
  }

  nb::class_<T> cls_;
  std::shared_ptr<std::vector<Field>> fields_;
};

}  // namespace msprobe
