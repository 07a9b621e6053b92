"""dump.json records of MindSpore's run_ut parsed as 1.2.1 reads them (its api_info / compute
element checks, with its messages, which become the SKIP reason of the direction)."""

TENSOR_TYPES = ("mindspore.Tensor", "bool", "int", "float", "slice", "str", "mindspore.dtype")
DTYPE_NAMES = ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float16", "Float32",
               "Float64", "Bool", "BFloat16", "Int4")
_PARSE = "[msprobe] Api Accuracy Checker parse json failed: "


class RecordError(Exception):
    """A record 1.2.1 refuses (the message is its text)."""


class TensorMeta:
    __slots__ = ("dtype", "shape", "maximum", "minimum", "data_name")

    def __init__(self, dtype, shape, maximum, minimum, data_name):
        self.dtype, self.shape, self.maximum, self.minimum, self.data_name = dtype, shape, maximum, minimum, data_name


class DtypeMeta:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def field(record, key, desc, types=None, values=None):
    """1.2.1's check_and_get_from_json_dict."""
    if not isinstance(record, dict):
        raise RecordError(_PARSE + "check_and_get_from_json_dict failed: input is not a dict")
    value = record.get(key)
    if value is None:
        raise RecordError(_PARSE + f"check_and_get_from_json_dict failed: {desc} is missing")
    if types is not None and not isinstance(value, types):
        raise RecordError(_PARSE + f"check_and_get_from_json_dict failed: {desc} is not accepted type: {types}")
    if values is not None and value not in values:
        shown = "dict_keys(%r)" % (list(values),)
        raise RecordError(_PARSE + f"check_and_get_from_json_dict failed: {desc} is not accepted value: {shown}")
    return value


def parse_element(info, constructed):
    """A list -> tuple of elements; None -> None; a dict -> TensorMeta, DtypeMeta or the value."""
    if isinstance(info, list):
        return tuple(parse_element(x, constructed) for x in info)
    if info is None:
        return None
    if not isinstance(info, dict):
        raise RecordError("[msprobe] Api Accuracy Checker get unsupported type: ")
    type_str = field(info, "type", "type field in api_info.json", str, TENSOR_TYPES)
    if type_str == "mindspore.Tensor":
        dtype = field(info, "dtype", "dtype field in api_info.json", str, DTYPE_NAMES)
        shape = field(info, "shape", "shape field in api_info.json", (list,))
        if constructed:
            hi = field(info, "Max", "Max field in api_info.json", (int, float))
            lo = field(info, "Min", "Min field in api_info.json", (int, float))
            return TensorMeta(dtype, shape, hi, lo, None)
        name = field(info, "data_name", "data_name field in api_info.json", (str,))
        return TensorMeta(dtype, shape, None, None, name)
    value = field(info, "value", "value field in api_info.json")
    if type_str == "mindspore.dtype":
        return DtypeMeta(value)
    if type_str == "slice":
        return slice(*tuple(value))
    return value


def parse_elements(record, key, desc, constructed):
    items = field(record, key, f"{key} field of {desc} in api_info.json", list)
    return [parse_element(x, constructed) for x in items]


def parse_kwargs(record, constructed):
    kwargs = field(record, "input_kwargs", "input_kwargs in api_info.json", dict)
    return {k: parse_element(v, constructed) for k, v in kwargs.items()}
