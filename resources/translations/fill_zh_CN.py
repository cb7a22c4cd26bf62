#!/usr/bin/env python3
"""Fills the Simplified Chinese translations of attention_lab_zh_CN.ts after lupdate.

Run from the repository root after
`lupdate -locations none app/gui -ts resources/translations/attention_lab_zh_CN.ts`.
Strings missing here stay unfinished (lrelease then shows the English text)."""
import sys
import xml.etree.ElementTree as ET

ZH = {
    # app/views (context attnlab::views: viewText calls, added by hand — lupdate does not see them)
    'grey = masked (causal: a query cannot see later keys)': '灰色 = 已遮蔽（因果：查询看不到后面的键）',
    'grey = masked': '灰色 = 已遮蔽',
    'causal mask': '因果掩码',
    'cross-attention': '交叉注意力',
    'attention weight': '注意力权重',
    'key': '键',
    'query': '查询',
    'head %1': '头 %1',
    'additive': '加性',
    'dot-product': '点积',
    'scaled dot-product': '缩放点积',
    'attention': '注意力',
    'unscaled': '未缩放',
    'scaled 1/√d_k': '按 1/√d_k 缩放',
    'scaled': '缩放',
    '1 head': '1 个头',
    '%1 heads': '%1 个头',
    'Softmax saturation vs d_k (n_k = %1 keys)': 'Softmax 饱和与 d_k（n_k = %1 个键）',
    'd_k (log₂ scale)': 'd_k（log₂ 刻度）',
    'mean over rows': '各行平均',
    'max weight, scaled 1/√d_k': '最大权重，按 1/√d_k 缩放',
    'max weight, unscaled': '最大权重，未缩放',
    'entropy / ln n_k, scaled 1/√d_k': '熵 / ln n_k，按 1/√d_k 缩放',
    'entropy / ln n_k, unscaled': '熵 / ln n_k，未缩放',
    'this sentence': '本句',
    'this sentence (n_k = %1): ● scaled, ○ unscaled': '本句（n_k = %1）：● 缩放，○ 未缩放',
    '%1 layers × %2 heads': '%1 层 × %2 个头',
    'layer %1': '第 %1 层',
    'tokens (rows = queries, columns = keys): ': '词元（行是查询，列是键）：',
    ' · special tokens hidden (weights not renormalised)': ' · 已隐藏特殊词元（权重未重新归一化）',
    "Export image": "导出图像",
    "Browse…": "浏览…",
    "File (.png, .svg, .pdf)": "文件（.png、.svg、.pdf）",
    "Width (px)": "宽度（像素）",
    "Height (px)": "高度（像素）",
    "Scale (PNG pixel ratio)": "缩放（PNG 像素比）",
    "Images (*.png *.svg *.pdf)": "图像 (*.png *.svg *.pdf)",
    "About Attention Lab": "关于注意力实验室",
    "Attention Lab: attention heatmaps per head and softmax saturation, computed by a synthetic transformer layer on this computer.":
        "注意力实验室：在本机用合成的 Transformer 层计算每个头的注意力热力图与 softmax 饱和。",
    "Attention Lab": "注意力实验室",
    "Inputs": "输入",
    "Text (queries; recomputed as you type)": "文本（查询；输入时自动重新计算）",
    "Type a sentence…": "输入一个句子…",
    "Source (optional: keys and values → cross-attention)": "源文本（可选：键和值 → 交叉注意力）",
    "Empty: self-attention": "留空：自注意力",
    "Mechanism": "机制",
    "additive (Bahdanau)": "加性（Bahdanau）",
    "dot-product": "点积",
    "scaled dot-product": "缩放点积",
    "Scale scores by 1/√d_k": "分数乘以 1/√d_k 缩放",
    "Temperature T": "温度 T",
    "d_k": "d_k",
    "Heads": "头数",
    "d_model": "d_model",
    "Causal mask (decoder)": "因果掩码（解码器）",
    "Seed": "随机种子",
    "Backend": "后端",
    "auto": "自动",
    "CPU": "CPU",
    "Shortcuts: Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K scaling · F5 presentation · Esc back to all heads":
        "快捷键：Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K 切换缩放 · F5 演示模式 · Esc 返回全部头",
    "← All heads": "← 全部头",
    "&File": "文件(&F)",
    "&Export": "导出(&E)",
    "Current head as image…": "当前头导出为图像…",
    "All heads as image…": "全部头导出为图像…",
    "Saturation plot as image…": "饱和曲线导出为图像…",
    "Matrices as CSV or NPY…": "矩阵导出为 CSV 或 NPY…",
    "Copy current head image": "复制当前头图像",
    "Copy all heads image": "复制全部头图像",
    "&Quit": "退出(&Q)",
    "E&xamples": "示例(&X)",
    "&View": "视图(&V)",
    "Toggle 1/√d_k scaling": "切换 1/√d_k 缩放",
    "d_k × 2": "d_k × 2",
    "d_k ÷ 2": "d_k ÷ 2",
    "All heads": "全部头",
    "Presentation mode": "演示模式",
    "&Language": "语言(&L)",
    "System language": "跟随系统语言",
    "&Help": "帮助(&H)",
    "Overview: %1 query tokens × %2 key tokens — labels thinned out; hover a cell to read its tokens, click a head to enlarge it.":
        "概览：%1 个查询词元 × %2 个键词元——标签已稀疏显示；悬停单元格查看词元，点击某个头将其放大。",
    "%1 query tokens × %2 key tokens · rows are queries, columns are keys · hover a cell for its weight, click a head to enlarge it":
        "%1 个查询词元 × %2 个键词元 · 行是查询，列是键 · 悬停单元格查看权重，点击某个头将其放大",
    "Head %1 of %2 · click a row (query) to see its softmax over the keys":
        "第 %1 个头（共 %2 个）· 点击一行（查询）查看它对各键的 softmax",
    "attention weight": "注意力权重",
    "Click a row\nto see its softmax": "点击一行\n查看其 softmax",
    "query %1 %2:\nsoftmax over keys": "查询 %1 %2：\n对各键的 softmax",
    "Computing the saturation curves for %1 keys…": "正在计算 %1 个键的饱和曲线…",
    "Entropy of each query row (mean over heads)": "每个查询行的熵（各头平均）",
    "nats": "奈特",
    "entropy H": "熵 H",
    "uniform row: ln(visible keys)": "均匀行：ln(可见键数)",
    "Histogram of this sentence's scores (all heads)": "本句分数的直方图（全部头）",
    "score (logit after scaling); spread %1 … %2": "分数（缩放后的 logit）；范围 %1 … %2",
    "cells": "单元格数",
    "Computing…": "计算中…",
    "computed in %1 ms (attention run %2 ms)": "计算用时 %1 毫秒（注意力 %2 毫秒）",
    " · new weights drawn in %1 ms": " · 新权重生成用时 %1 毫秒",
    " · %1 × %2 tokens, %3 heads": " · %1 × %2 个词元，%3 个头",
    "Not recomputed: %1": "未重新计算：%1",
    "backend: %1 (%2)": "后端：%1（%2）",
    " · %1 requested, fell back: %2": " · 请求 %1，已回退：%2",
    "OpenCL device %1 (not found)": "OpenCL 设备 %1（未找到）",
    "In use: %1": "正在使用：%1",
    "head %1 · query %2 %3 → key %4 %5": "头 %1 · 查询 %2 %3 → 键 %4 %5",
    "%1: masked": "%1：已掩码",
    "%1: weight %2, score %3": "%1：权重 %2，分数 %3",
    "Image copied to the clipboard": "图像已复制到剪贴板",
    "Wrote %1": "已写入 %1",
    "Export failed: %1": "导出失败：%1",
    "Export matrices": "导出矩阵",
    "CSV, every head (*.csv);;NumPy weights [h, n_q, n_k] (*.npy)":
        "CSV，全部头 (*.csv);;NumPy 权重 [h, n_q, n_k] (*.npy)",
    # pretrained models (issue 5)
    "Loading %1…": "正在加载 %1…",
    "File → Open model folder… shows the attention of a real pretrained model (a HuggingFace folder: BERT family or GPT-2), layer by layer.":
        "文件 → 打开模型文件夹… 可逐层显示真实预训练模型（HuggingFace 文件夹：BERT 系列或 GPT-2）的注意力。",
    "Attention from": "注意力来源",
    "Open…": "打开…",
    "Open a pretrained model folder (HuggingFace: config.json, model.safetensors, tokenizer files)":
        "打开预训练模型文件夹（HuggingFace：config.json、model.safetensors、分词器文件）",
    "Second sentence (optional: a BERT sentence pair)": "第二个句子（可选：BERT 句对）",
    "Empty: one sentence · [CLS] text [SEP] pair [SEP]": "留空：单句 · [CLS] 文本 [SEP] 句对 [SEP]",
    "Layer": "层",
    "Hide special tokens ([CLS], [SEP], <|endoftext|>)": "隐藏特殊词元（[CLS]、[SEP]、<|endoftext|>）",
    "A display filter: the rows and columns of special tokens are left out; the weights are not renormalised, so rows may sum to less than 1.":
        "仅影响显示：去掉特殊词元所在的行和列；权重不重新归一化，因此各行之和可能小于 1。",
    "Open model folder…": "打开模型文件夹…",
    "Synthetic lab": "合成实验室",
    "Decided by the model: %1 has %2 layers × %3 heads, d_model = %4, d_k = %5, %6.":
        "由模型决定：%1 有 %2 层 × %3 个头，d_model = %4，d_k = %5，%6。",
    "causal mask": "因果掩码",
    "no mask": "无掩码",
    "Decided by the model.": "由模型决定。",
    "%1 is a GPT-2: it reads one text, no sentence pairs.": "%1 是 GPT-2：只读一段文本，不支持句对。",
    "%1 · %2 · %3 layers × %4 heads · d_model = %5 · loaded in %6 ms":
        "%1 · %2 · %3 层 × %4 个头 · d_model = %5 · 加载用时 %6 毫秒",
    "All layers × heads as image…": "全部层 × 头导出为图像…",
    "Copy all layers × heads image": "复制全部层 × 头图像",
    "Synthetic lab (random weights)": "合成实验室（随机权重）",
    "All layers (model view)": "全部层（模型视图）",
    "Layer %1": "第 %1 层",
    "Open model folder (config.json, model.safetensors, tokenizer)":
        "打开模型文件夹（config.json、model.safetensors、分词器）",
    "Cannot open the model folder %1: %2 — showing the synthetic lab.":
        "无法打开模型文件夹 %1：%2——改为显示合成实验室。",
    "Cannot open the model folder %1: %2 — still showing %3.":
        "无法打开模型文件夹 %1：%2——仍显示 %3。",
    "special tokens hidden — weights not renormalised (rows may sum to less than 1)":
        "已隐藏特殊词元——权重未重新归一化（各行之和可能小于 1）",
    "%1 · %2 layers × %3 heads · %4 tokens · each thumbnail: rows are queries, columns are keys · click one to enlarge it":
        "%1 · %2 层 × %3 个头 · %4 个词元 · 每个缩略图：行是查询，列是键 · 点击可放大",
    "Layer %1 · head %2 of %3 · click a row (query) to see its softmax over the keys":
        "第 %1 层 · 第 %2 个头（共 %3 个）· 点击一行（查询）查看它对各键的 softmax",
    "← All layers": "← 全部层",
    "Entropy of each query row, layer %1 (mean over heads)": "第 %1 层每个查询行的熵（各头平均）",
    "Histogram of this sentence's scores (layer %1, all heads)": "本句分数的直方图（第 %1 层，全部头）",
    "computed in %1 ms (forward pass %2 ms)": "计算用时 %1 毫秒（前向传播 %2 毫秒）",
    " · model loaded in %1 ms": " · 模型加载用时 %1 毫秒",
    " · %1 tokens · %2 layers × %3 heads": " · %1 个词元 · %2 层 × %3 个头",
    " · %1 tokens · layer %2 of %3 · %4 heads": " · %1 个词元 · 第 %2 层（共 %3 层）· %4 个头",
    "layer %1 · %2": "第 %1 层 · %2",
    "CSV, every layer and head (*.csv);;NumPy weights [L, h, n, n] (*.npy)":
        "CSV，全部层和头 (*.csv);;NumPy 权重 [L, h, n, n] (*.npy)",
}

# Strings the views draw (context attnlab::views): lupdate does not see viewText, so they are
# added to the .ts here when missing.
VIEWS_ADDED = [
    '%1 layers × %2 heads',
    'layer %1',
    'tokens (rows = queries, columns = keys): ',
    ' · special tokens hidden (weights not renormalised)',
]

path = sys.argv[1] if len(sys.argv) > 1 else "resources/translations/attention_lab_zh_CN.ts"
tree = ET.parse(path)
for context in tree.getroot().iter("context"):
    if context.findtext("name") != "attnlab::views":
        continue
    present = {m.findtext("source") for m in context.iter("message")}
    for source in VIEWS_ADDED:
        if source in present:
            continue
        # Laid out as lupdate writes it, so a later lupdate run leaves the file unchanged.
        context[-1].tail = "\n    "
        message = ET.SubElement(context, "message")
        message.text = "\n        "
        message.tail = "\n"
        element = ET.SubElement(message, "source")
        element.text = source
        element.tail = "\n        "
        element = ET.SubElement(message, "translation")
        element.text = ""
        element.tail = "\n    "
missing = []
for message in tree.getroot().iter("message"):
    source = message.find("source").text or ""
    translation = message.find("translation")
    if source in ZH:
        translation.text = ZH[source]
        translation.attrib.pop("type", None)
    else:
        missing.append(source)
tree.getroot().set("language", "zh_CN")
with open(path, "wb") as f:
    f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
    tree.write(f, encoding="utf-8", xml_declaration=False)
    f.write(b"\n")
for source in missing:
    print("untranslated:", repr(source), file=sys.stderr)
