"""Reference of torch_npu.npu_fusion_attention (FlashAttention on NPU).

out = softmax((Q K^T + pse) * scale + mask * (-40000)) V, with the layouts BSH, SBH, BSND, BNSD,
grouped-query attention (key/value heads repeated) and the sparse modes 0-4 (the compressed
2048x2048 causal mask of modes 2-4 is expanded to the real sequence lengths). Dropout is not
modelled (keep_prob is treated as 1). Returns (attention_out, softmax_max, softmax_sum); run_ut
compares attention_out only.
"""
import torch

MAX_TOKENS = 2147483647
LAYOUTS = ("BSH", "SBH", "BSND", "BNSD")


def _to_bnsd(t, heads, layout):
    if layout == "BSH":
        b, s, h = t.shape
        return t.reshape(b, s, heads, h // heads).permute(0, 2, 1, 3)
    if layout == "SBH":
        s, b, h = t.shape
        return t.reshape(s, b, heads, h // heads).permute(1, 2, 0, 3)
    if layout == "BSND":
        return t.permute(0, 2, 1, 3)
    return t


def _from_bnsd(t, layout):
    b, n, s, d = t.shape
    if layout == "BSH":
        return t.permute(0, 2, 1, 3).reshape(b, s, n * d)
    if layout == "SBH":
        return t.permute(2, 0, 1, 3).reshape(s, b, n * d)
    if layout == "BSND":
        return t.permute(0, 2, 1, 3).contiguous()
    return t


def _dims(query, key, head_num, layout):
    if layout not in LAYOUTS:
        raise ValueError(f"Invalid input_layout {layout!r}: supported layouts are {', '.join(LAYOUTS)} "
                         "(TND is not supported)")
    if layout in ("BSH", "SBH"):  # heads folded into the hidden size: head_num tells them apart
        if layout == "BSH":
            b, s1, h1 = query.shape
            s2 = key.shape[1]
        else:
            s1, b, h1 = query.shape
            s2 = key.shape[0]
        h2 = key.shape[2]
        n1 = head_num
        d = h1 // n1
        n2 = h2 // d if d else 0
    elif layout == "BSND":
        b, s1, n1, d = query.shape
        s2, n2 = key.shape[1], key.shape[2]
    else:
        b, n1, s1, d = query.shape
        n2, s2 = key.shape[1], key.shape[2]
    if d == 0:
        raise ValueError("Value d must be non-zero.")
    if n2 == 0 or n1 % n2 != 0:
        raise ValueError(f"N1与N2不匹配,请检查: n1 = {n1}, n2 = {n2}.")
    return b, s1, s2, n1, n2, d


def _band(shape, pre, nxt):
    ones = torch.ones(shape, dtype=torch.float64)
    return torch.triu(ones, diagonal=nxt + 1) + torch.tril(ones, diagonal=-pre - 1)


def _mask(sparse_mode, atten_mask, s1, s2, pre, nxt):
    shape = [s1, s2]
    ones = lambda: torch.ones(shape, dtype=torch.float64)  # noqa: E731
    if atten_mask is not None:
        if sparse_mode in (2, 3, 4) and atten_mask.dim() == 2 and tuple(atten_mask.shape) == (2048, 2048):
            compressed = torch.triu(torch.ones(2048, 2048), diagonal=1).to(atten_mask.dtype)
            if torch.equal(atten_mask.cpu(), compressed):
                if sparse_mode == 2:
                    return torch.triu(ones(), diagonal=1)
                if sparse_mode == 3:
                    return torch.triu(ones(), diagonal=s2 - s1 + 1)
                return _band(shape, pre, nxt)
        return atten_mask
    if sparse_mode == 0:
        return _band(shape, pre, nxt) if (pre < s1 or nxt < s2) else None
    if sparse_mode == 1:
        return None
    if sparse_mode == 2:
        return torch.triu(ones(), diagonal=1)
    if sparse_mode == 3:
        return torch.triu(ones(), diagonal=s2 - s1 + 1)
    if sparse_mode == 4:
        return _band(shape, pre, nxt)
    raise ValueError(f"sparse_mode {sparse_mode} needs an explicit atten_mask")


def attention(query, key, value, head_num, input_layout, pse=None, padding_mask=None, atten_mask=None,
              scale=1.0, keep_prob=1.0, pre_tockens=MAX_TOKENS, next_tockens=MAX_TOKENS, inner_precise=0,
              prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None, sparse_mode=0,
              gen_mask_parallel=True, sync=False, *, compute_dtype=None, out_dtype=None):
    b, s1, s2, n1, n2, d = _dims(query, key, head_num, input_layout)
    compute_dtype = compute_dtype or query.dtype
    q = _to_bnsd(query, n1, input_layout).to(compute_dtype)
    k = _to_bnsd(key, n2, input_layout).to(compute_dtype)
    v = _to_bnsd(value, n2, input_layout).to(compute_dtype)
    if n1 != n2:
        k = k.repeat_interleave(n1 // n2, dim=1)
        v = v.repeat_interleave(n1 // n2, dim=1)
    qk = torch.matmul(q, k.transpose(-1, -2))
    if pse is not None and pse.dim() > 0:
        qk = qk + pse.to(qk.device, compute_dtype)
    qk = qk * scale
    mask = _mask(sparse_mode, atten_mask, s1, s2, pre_tockens, next_tockens)
    if mask is not None and mask.dim() > 0:
        qk = qk + mask.to(qk.device).bool().to(compute_dtype) * (-40000.0)
    qk_max = torch.max(qk, dim=-1, keepdim=True)[0]
    e = torch.exp(qk - qk_max)
    e_sum = e.sum(dim=-1, keepdim=True)
    out = torch.matmul(e / e_sum, v)
    out = _from_bnsd(out, input_layout)
    if out_dtype is not None:
        out = out.to(out_dtype)
    return out, qk_max.repeat(1, 1, 1, 8), e_sum.repeat(1, 1, 1, 8)


def npu_fusion_attention_bench(*args, **kwargs):
    """High-precision benchmark: float64 arithmetic and output."""
    return attention(*args, compute_dtype=torch.float64, out_dtype=torch.float64, **kwargs)


def npu_fusion_attention_device(*args, **kwargs):
    """Device side without an NPU: float32 arithmetic, output at the query's dtype."""
    query = args[0] if args else kwargs["query"]
    return attention(*args, compute_dtype=torch.float32, out_dtype=query.dtype, **kwargs)
