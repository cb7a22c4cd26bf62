"""The torch reference of the two trained translators (issue 23; the file contract with the engine
is docs/models.md "Trained translators"). scripts/train-translators trains them and writes the
goldens with these very modules, so the tensor names here are the safetensors names.

Shapes: B batch, n_s source length, T target length, V_s / V_t vocabulary sizes. Padded source
positions (id PAD) are masked out of every attention (weight exactly 0), so a padded batch row
equals the same example run alone, which is what the engine does.
"""

import math

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


class AdditiveAttention(nn.Module):
    """e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j), α_ij = softmax_j(e_ij), c_i = Σ_j α_ij h_j
    (Bahdanau et al. 2015, eqs. 5–6 and appendix A; no biases)."""

    def __init__(self, decoder_hidden, annotation_dim, attention_dim):
        super().__init__()
        self.W_a = nn.Linear(decoder_hidden, attention_dim, bias=False)
        self.U_a = nn.Linear(annotation_dim, attention_dim, bias=False)
        self.v = nn.Linear(attention_dim, 1, bias=False)

    def forward(self, s_prev, keys, annotations, mask):
        """s_prev [B, n_d], keys = U_a h [B, n_s, d_a], annotations h [B, n_s, 2n], mask [B, n_s]
        (True = real character) -> (context c [B, 2n], weights α [B, n_s])."""
        scores = self.v(torch.tanh(self.W_a(s_prev)[:, None, :] + keys)).squeeze(-1)
        alpha = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        return torch.bmm(alpha[:, None, :], annotations).squeeze(1), alpha


class AdditiveTranslator(nn.Module):
    """dates-additive: bidirectional GRU encoder, GRU decoder with additive attention."""

    def __init__(self, source_vocab, target_vocab, embedding_dim, encoder_hidden, decoder_hidden,
                 attention_dim):
        super().__init__()
        self.n = encoder_hidden
        self.src_embed = nn.Embedding(source_vocab, embedding_dim)
        self.tgt_embed = nn.Embedding(target_vocab, embedding_dim)
        self.encoder = nn.GRU(embedding_dim, encoder_hidden, bidirectional=True, batch_first=True)
        self.init = nn.Linear(encoder_hidden, decoder_hidden)
        self.attention = AdditiveAttention(decoder_hidden, 2 * encoder_hidden, attention_dim)
        self.decoder = nn.GRUCell(embedding_dim + 2 * encoder_hidden, decoder_hidden)
        self.out = nn.Linear(decoder_hidden + 2 * encoder_hidden + embedding_dim, target_vocab)

    def encode(self, src):
        """src [B, n_s] -> (annotations h [B, n_s, 2n] = [→h ; ←h], s_0 [B, n_d], mask)."""
        mask = src != PAD
        lengths = mask.sum(dim=1)
        packed = pack_padded_sequence(self.src_embed(src), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        out, _ = self.encoder(packed)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        s0 = torch.tanh(self.init(h[:, 0, self.n:]))  # ←h_1: backward state at position 1
        return h, s0, mask

    def forward(self, src, dec_in=None, max_len=None):
        """Teacher forcing with dec_in [B, T] (<s>, y_1 … y_{T−1}), or greedy for max_len steps
        when dec_in is None -> (logits [B, T, V_t], attention α [B, T, n_s], tokens [B, T])."""
        h, s, mask = self.encode(src)
        keys = self.attention.U_a(h)
        steps = dec_in.shape[1] if dec_in is not None else max_len
        y = dec_in[:, 0] if dec_in is not None else torch.full_like(src[:, 0], BOS)
        logits, alphas, tokens = [], [], []
        for i in range(steps):
            emb = self.tgt_embed(y)
            c, alpha = self.attention(s, keys, h, mask)
            s = self.decoder(torch.cat([emb, c], dim=-1), s)
            step_logits = self.out(torch.cat([s, c, emb], dim=-1))
            logits.append(step_logits)
            alphas.append(alpha)
            tokens.append(step_logits.argmax(dim=-1))
            if i + 1 < steps:
                y = dec_in[:, i + 1] if dec_in is not None else tokens[-1]
        return torch.stack(logits, 1), torch.stack(alphas, 1), torch.stack(tokens, 1)


class MultiHeadAttention(nn.Module):
    """Vaswani et al. 2017 §3.2.2 with a per-head d_k independent of d_model:
    S_i = Q_i K_iᵀ · (1/√d_k if scale else 1), P_i = softmax(S_i), O = [P_0 V_0 | …] W_oᵀ + b_o."""

    def __init__(self, d_model, heads, d_k, scale):
        super().__init__()
        self.heads, self.d_k, self.scale = heads, d_k, scale
        self.q = nn.Linear(d_model, heads * d_k)
        self.k = nn.Linear(d_model, heads * d_k)
        self.v = nn.Linear(d_model, heads * d_k)
        self.o = nn.Linear(heads * d_k, d_model)

    def forward(self, x_q, x_kv, key_mask, causal=False):
        """x_q [B, n_q, d_model], x_kv [B, n_k, d_model], key_mask [B, n_k] (True = real)
        -> (output [B, n_q, d_model], attention weights P [B, h, n_q, n_k])."""
        b, n_q, _ = x_q.shape
        n_k = x_kv.shape[1]

        def split(t, n):
            return t.view(b, n, self.heads, self.d_k).transpose(1, 2)

        q, k, v = split(self.q(x_q), n_q), split(self.k(x_kv), n_k), split(self.v(x_kv), n_k)
        scores = q @ k.transpose(-1, -2)
        if self.scale:
            scores = scores / math.sqrt(self.d_k)
        allowed = key_mask[:, None, None, :]
        if causal:
            allowed = allowed & torch.ones(n_q, n_k, dtype=torch.bool).tril()[None, None]
        p = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = (p @ v).transpose(1, 2).reshape(b, n_q, self.heads * self.d_k)
        return self.o(out), p


class FeedForward(nn.Module):
    """FFN(x) = W2 ReLU(W1 x + b1) + b2."""

    def __init__(self, d_model, d_ff):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class EncoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = MultiHeadAttention(c["d_model"], c["heads"], c["d_k"], c["scale_attention"])
        self.norm1 = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"])
        self.norm2 = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"])
        self.ffn = FeedForward(c["d_model"], c["d_ff"])

    def forward(self, x, mask):
        a = self.norm1(x)
        out, p = self.self_attn(a, a, mask)
        x = x + out
        return x + self.ffn(self.norm2(x)), p


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        args = (c["d_model"], c["heads"], c["d_k"], c["scale_attention"])
        self.self_attn = MultiHeadAttention(*args)
        self.cross_attn = MultiHeadAttention(*args)
        self.norm1 = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"])
        self.norm2 = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"])
        self.norm3 = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"])
        self.ffn = FeedForward(c["d_model"], c["d_ff"])

    def forward(self, y, memory, src_mask):
        a = self.norm1(y)
        out, p_self = self.self_attn(a, a, torch.ones_like(y[:, :, 0], dtype=torch.bool), True)
        y = y + out
        out, p_cross = self.cross_attn(self.norm2(y), memory, src_mask)
        y = y + out
        return y + self.ffn(self.norm3(y)), p_self, p_cross


class Stack(nn.Module):
    def __init__(self, layers, d_model, eps):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = nn.LayerNorm(d_model, eps=eps)


def sinusoidal_positions(n, d_model):
    """PE(p, 2i) = sin(p / 10000^{2i/d_model}), PE(p, 2i+1) = cos(…) (Vaswani §3.5): [n, d_model]."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    rate = torch.pow(10000.0, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    pe = torch.zeros(n, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * rate)
    pe[:, 1::2] = torch.cos(pos * rate)
    return pe.float()


class TransformerTranslator(nn.Module):
    """dates-transformer: pre-LN encoder–decoder, sinusoidal positions, embeddings × √d_model."""

    def __init__(self, source_vocab, target_vocab, c):
        super().__init__()
        self.c = c
        d = c["d_model"]
        self.src_embed = nn.Embedding(source_vocab, d)
        self.tgt_embed = nn.Embedding(target_vocab, d)
        eps = c["layer_norm_eps"]
        self.encoder = Stack([EncoderLayer(c) for _ in range(c["encoder_layers"])], d, eps)
        self.decoder = Stack([DecoderLayer(c) for _ in range(c["decoder_layers"])], d, eps)
        self.out = nn.Linear(d, target_vocab)
        self.register_buffer("pe", sinusoidal_positions(64, d), persistent=False)
        # Embeddings N(0, 1/d_model), so that × √d_model they have unit variance like PE; every
        # projection N(0, 1/fan_in) with zero bias, so that queries and keys of LayerNorm'd inputs
        # have unit-variance components: the assumption of Vaswani's footnote 4 (q·k then has
        # variance d_k), which is what makes the 1/√d_k scale matter.
        for emb in (self.src_embed, self.tgt_embed):
            nn.init.normal_(emb.weight, std=d ** -0.5)
        for m in self.modules():
            if isinstance(m, nn.Linear) and m is not self.out:
                nn.init.normal_(m.weight, std=m.in_features ** -0.5)
                nn.init.zeros_(m.bias)

    def embed(self, table, ids):
        return table(ids) * self.c["embedding_scale"] + self.pe[: ids.shape[1]]

    def encode(self, src):
        """src [B, n_s] -> (memory M [B, n_s, d_model], mask, encoder_self [L] × [B, h, n_s, n_s])."""
        mask = src != PAD
        x = self.embed(self.src_embed, src)
        attn = []
        for layer in self.encoder.layers:
            x, p = layer(x, mask)
            attn.append(p)
        return self.encoder.norm(x), mask, attn

    def decode(self, memory, mask, dec_in):
        """dec_in [B, T] -> (logits [B, T, V_t], decoder_self [L] × [B, h, T, T], cross [L] ×
        [B, h, T, n_s])."""
        y = self.embed(self.tgt_embed, dec_in)
        selfs, crosses = [], []
        for layer in self.decoder.layers:
            y, p_self, p_cross = layer(y, memory, mask)
            selfs.append(p_self)
            crosses.append(p_cross)
        return self.out(self.decoder.norm(y)), selfs, crosses

    def forward(self, src, dec_in=None, max_len=None):
        """Teacher forcing with dec_in, or greedy for max_len steps -> (logits, attention dict of
        lists per layer, tokens [B, T]); greedy's attention is that of its last, full pass."""
        memory, mask, enc = self.encode(src)
        if dec_in is None:
            dec_in = torch.full_like(src[:, :1], BOS)
            for i in range(max_len):
                logits, _, _ = self.decode(memory, mask, dec_in)
                if i + 1 < max_len:
                    dec_in = torch.cat([dec_in, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
        logits, selfs, crosses = self.decode(memory, mask, dec_in)
        attn = {"encoder_self": enc, "decoder_self": selfs, "cross": crosses}
        return logits, attn, logits.argmax(-1)
