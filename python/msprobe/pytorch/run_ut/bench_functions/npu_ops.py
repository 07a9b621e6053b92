"""CPU reference implementations of torch_npu fused operators (written from their documented
semantics). Each takes the real operator's signature and computes at the dtype of its inputs:
run_ut calls it with upcast inputs for the high-precision benchmark, and through `kernel_like`
(fp32 arithmetic, outputs rounded to the dumped dtype, as the fused kernels do) for the device
side when no NPU is present."""
import torch
import torch.nn.functional as F

HALF = (torch.float16, torch.bfloat16)


def npu_fast_gelu(input):  # noqa: A002 (torch_npu's argument name)
    """x * exp(0.851 (x - |x|)) / (1 + exp(-1.702 |x|))."""
    x = input
    a = torch.abs(x)
    return x * torch.exp(0.851 * (x - a)) / (1.0 + torch.exp(-1.702 * a))


def npu_linear(input, weight, bias=None):  # noqa: A002
    return F.linear(input, weight, bias)


def npu_layer_norm_eval(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """Layer norm in inference mode (weight, bias and eps are applied; 1.2.1's golden dropped them)."""
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return F.layer_norm(input, list(normalized_shape), weight, bias, eps)


def npu_confusion_transpose(self, perm, shape, transpose_first):
    """permute then reshape (transpose_first) or reshape then permute."""
    if transpose_first:
        return self.permute(*perm).contiguous().view(*shape)
    return self.reshape(*shape).permute(*perm)


def npu_rms_norm(self, gamma, epsilon=1e-6):
    """(x * rsqrt(mean(x^2, -1) + eps) * gamma, rstd as float32)."""
    x = self
    rstd = torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + epsilon)
    return x * rstd * gamma, rstd.float()


def npu_rotary_mul(self, r1, r2, rotary_mode="half"):
    """x * r1 + rotate(x) * r2; rotate(x) = cat(-x2, x1) of the last-dim halves ("half") or the
    pairwise (-x[2i+1], x[2i]) ("interleave")."""
    x = self
    if rotary_mode == "interleave":
        even, odd = x[..., 0::2], x[..., 1::2]
        rotated = torch.stack((-odd, even), dim=-1).reshape(x.shape)
    else:
        x1, x2 = torch.chunk(x, 2, dim=-1)
        rotated = torch.cat((-x2, x1), dim=-1)
    return r1 * x + r2 * rotated


def npu_scaled_masked_softmax(x, mask, scale=1.0, fixed_triu_mask=False):
    """softmax(masked_fill(x * scale, mask, -10000)) along the last dim, in float32, returned at
    x's dtype; fixed_triu_mask replaces the mask by the strict upper triangle."""
    if fixed_triu_mask:
        mask = torch.triu(torch.ones(mask.shape, device=mask.device), diagonal=1).bool()
    dtype = x.dtype
    y = (x * scale).masked_fill(mask.bool(), -10000.0)
    y = y - torch.max(y, dim=-1, keepdim=True)[0]
    y = torch.exp(y.float())
    return (y / torch.sum(y, dim=-1, keepdim=True)).to(dtype)


def npu_swiglu(x, dim=-1):
    """silu(a) * b with (a, b) = chunk(x, 2, dim). Half inputs are computed in float32 with silu
    rounded to the input dtype, as the NPU kernel does."""
    a, b = torch.chunk(x, 2, dim=dim)
    if x.dtype in HALF:
        s = F.silu(a.float()).to(x.dtype).float()
        return (s * b.float()).to(x.dtype)
    return torch.sigmoid(a) * a * b


def npu_apply_adam_w(beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad,
                     max_grad_norm, amsgrad, maximize, out=None):
    """One AdamW step on out=(var, m, v); returns the new (var, m, v). With amsgrad the given
    max_grad_norm is used (1.2.1's golden replaced it by random values)."""
    if out is None or len(out) != 3:
        raise ValueError("npu_apply_adam_w needs out=(var, m, v)")
    var, m, v = out
    b1p = beta1_power * beta1
    b2p = beta2_power * beta2
    var_t = var * (1 - lr * weight_decay)
    g = -grad if maximize else grad
    m_out = m * beta1 + (1 - beta1) * g
    v_out = v * beta2 + (1 - beta2) * g * g
    if amsgrad:
        vmax = torch.maximum(max_grad_norm.to(v_out.dtype), v_out)
        if 1 - b2p == 0:
            b2p = b2p - epsilon
        denom = torch.sqrt(vmax / (1 - b2p)) + epsilon
    else:
        denom = torch.sqrt(v_out / (1 - b2p)) + epsilon
    if 1 - b1p == 0:
        b1p = b1p - epsilon
    var_out = var_t + (-lr * m_out / (1 - b1p)) / denom
    return var_out, m_out, v_out
