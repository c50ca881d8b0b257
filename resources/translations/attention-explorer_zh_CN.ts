<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name>Document</name>
        <message>
            <source>Edit %1(%2, %3)</source>
            <translation type="vanished">编辑 %1(%2, %3)</translation>
        </message>
    </context>
    <context>
        <name>Exports</name>
        <message>
            <source>Cannot write "%1": %2</source>
            <translation>无法写入“%1”：%2</translation>
        </message>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
        <message>
            <source>%1: the file is too large (%2 bytes)</source>
            <translation>%1：文件过大（%2 字节）</translation>
        </message>
        <message>
            <source>Cannot create the folder "%1"</source>
            <translation>无法创建文件夹“%1”</translation>
        </message>
        <message>
            <source>%1 is a file, not a folder</source>
            <translation>%1 是文件，不是文件夹</translation>
        </message>
        <message>
            <source>the disk took only part of it (is it full?)</source>
            <translation>磁盘只写入了一部分（磁盘是否已满？）</translation>
        </message>
        <message>
            <source>the new file could not take the old one's place</source>
            <translation>新文件无法取代旧文件</translation>
        </message>
        <message>
            <source>a folder has that name</source>
            <translation>已有同名的文件夹</translation>
        </message>
    </context>
    <context>
        <name>Handout</name>
        <message>
            <source>Self-attention on one page</source>
            <translation>一页看懂自注意力</translation>
        </message>
        <message>
            <source>The seven steps</source>
            <translation>七个步骤</translation>
        </message>
        <message>
            <source>Attention Explorer · %1</source>
            <translation>注意力探索器 · %1</translation>
        </message>
        <message>
            <source>   … and %1 more</source>
            <translation>   … 另有 %1 个</translation>
        </message>
        <message>
            <source>Tokens</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>n = %1 tokens</source>
            <translation>n = %1 个词元</translation>
        </message>
        <message>
            <source>d_model = %1</source>
            <translation>d_model = %1</translation>
        </message>
        <message>
            <source>d_k = %1</source>
            <translation>d_k = %1</translation>
        </message>
        <message>
            <source>d_v = %1</source>
            <translation>d_v = %1</translation>
        </message>
        <message>
            <source>heads h = %1</source>
            <translation>头数 h = %1</translation>
        </message>
        <message>
            <source>scores divided by √d_k</source>
            <translation>分数除以 √d_k</translation>
        </message>
        <message>
            <source>scores not scaled</source>
            <translation>分数未缩放</translation>
        </message>
        <message>
            <source>temperature %1</source>
            <translation>温度 %1</translation>
        </message>
        <message>
            <source>causal mask</source>
            <translation>因果掩码</translation>
        </message>
        <message>
            <source>The weights of heads 1 to %1 of %2.</source>
            <translation>显示 %2 个头中第 1 至 %1 个头的权重。</translation>
        </message>
        <message>
            <source>Self-attention</source>
            <translation>自注意力</translation>
        </message>
        <message>
            <source>The handout could not be painted</source>
            <translation>无法绘制讲义</translation>
        </message>
    </context>
    <context>
        <name>HeatmapExport</name>
        <message>
            <source>Cannot export "%1": not enough memory for a %2 × %3 image</source>
            <translation>无法导出“%1”：内存不足以生成 %2 × %3 的图像</translation>
        </message>
        <message>
            <source>Cannot write "%1": %2</source>
            <translation type="vanished">无法写入“%1”：%2</translation>
        </message>
        <message>
            <source>Cannot write "%1": the SVG could not be started</source>
            <translation type="vanished">无法写入“%1”：无法开始生成 SVG</translation>
        </message>
        <message>
            <source>the SVG could not be started</source>
            <translation>无法开始生成 SVG</translation>
        </message>
        <message>
            <source>Cannot write "%1": the PDF could not be started</source>
            <translation type="vanished">无法写入“%1”：无法开始生成 PDF</translation>
        </message>
        <message>
            <source>the PDF could not be started</source>
            <translation>无法开始生成 PDF</translation>
        </message>
        <message>
            <source>the PNG could not be encoded</source>
            <translation>无法编码 PNG 图像</translation>
        </message>
        <message>
            <source>Cannot export "%1": the file name has no ending (use .png, .svg or .pdf)</source>
            <translation>无法导出“%1”：文件名没有扩展名（请使用 .png、.svg 或 .pdf）</translation>
        </message>
        <message>
            <source>Cannot export "%1": unknown file ending ".%2" (use .png, .svg or .pdf)</source>
            <translation>无法导出“%1”：未知的扩展名“.%2”（请使用 .png、.svg 或 .pdf）</translation>
        </message>
        <message>
            <source>Cannot export "%1": the size %2×%3 is larger than %4 pixels a side</source>
            <translation>无法导出“%1”：尺寸 %2×%3 超过了每边 %4 像素的上限</translation>
        </message>
    </context>
    <context>
        <name>QueryChooser</name>
        <message>
            <source>%1 “%2”</source>
            <translation>%1 “%2”</translation>
        </message>
    </context>
    <context>
        <name>Report</name>
        <message>
            <source> · head %1</source>
            <translation> · 第 %1 头</translation>
        </message>
        <message>
            <source>%1: %2 × %3 (%4)</source>
            <translation>%1：%2 × %3（%4）</translation>
        </message>
        <message>
            <source>Q and K: %1 × %2 (n × d_k);  V: %1 × %3 (n × d_v)</source>
            <translation>Q 和 K：%1 × %2（n × d_k）；V：%1 × %3（n × d_v）</translation>
        </message>
        <message>
            <source>scores</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>scaled scores</source>
            <translation>缩放后的分数</translation>
        </message>
        <message>
            <source>weights</source>
            <translation>权重</translation>
        </message>
        <message>
            <source>for each query i: %1 × %2 (n × d_v), one row per key j</source>
            <translation>每个查询 i：%1 × %2（n × d_v），每个键 j 一行</translation>
        </message>
        <message>
            <source>query %1 (%2)</source>
            <translation>查询 %1（%2）</translation>
        </message>
        <message>
            <source>The other queries%1 are weighted the same way, each with its own row of weights.</source>
            <translation>其他查询%1也以同样的方式加权，各自使用自己那一行权重。</translation>
        </message>
        <message>
            <source> and heads</source>
            <translation>和其他头</translation>
        </message>
        <message>
            <source>concat</source>
            <translation>拼接</translation>
        </message>
        <message>
            <source>n × h·d_v</source>
            <translation>n × h·d_v</translation>
        </message>
        <message>
            <source>output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>n × d_out</source>
            <translation>n × d_out</translation>
        </message>
        <message>
            <source>Attention Explorer · %1</source>
            <translation>注意力探索器 · %1</translation>
        </message>
        <message>
            <source>page %1</source>
            <translation>第 %1 页</translation>
        </message>
        <message>
            <source>Self-attention, step by step</source>
            <translation>自注意力，一步一步</translation>
        </message>
        <message>
            <source>Scaled dot-product self-attention computed from the numbers below, step by step. Rows are tokens. Numbers are rounded to 4 decimals; the exact values are in the CSV and JSON exports.</source>
            <translation>由下列数字逐步计算的缩放点积自注意力。行对应词元。数字四舍五入到 4 位小数；精确值见 CSV 和 JSON 导出。</translation>
        </message>
        <message>
            <source>Tokens</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>   … and %1 more</source>
            <translation>   … 另有 %1 个</translation>
        </message>
        <message>
            <source>Shapes</source>
            <translation>形状</translation>
        </message>
        <message>
            <source>n = %1 tokens</source>
            <translation>n = %1 个词元</translation>
        </message>
        <message>
            <source>d_model = %1</source>
            <translation>d_model = %1</translation>
        </message>
        <message>
            <source>heads h = %1</source>
            <translation>头数 h = %1</translation>
        </message>
        <message>
            <source>d_k = %1</source>
            <translation>d_k = %1</translation>
        </message>
        <message>
            <source>d_v = %1</source>
            <translation>d_v = %1</translation>
        </message>
        <message>
            <source>d_out = %1</source>
            <translation>d_out = %1</translation>
        </message>
        <message>
            <source>X: n × d_model,   W_Q and W_K: d_model × h·d_k,   W_V: d_model × h·d_v%1</source>
            <translation>X：n × d_model，   W_Q 和 W_K：d_model × h·d_k，   W_V：d_model × h·d_v%1</translation>
        </message>
        <message>
            <source>,   W_O: h·d_v × d_out</source>
            <translation>，   W_O：h·d_v × d_out</translation>
        </message>
        <message>
            <source>Options</source>
            <translation>选项</translation>
        </message>
        <message>
            <source>scores divided by √d_k</source>
            <translation>分数除以 √d_k</translation>
        </message>
        <message>
            <source>scores not scaled</source>
            <translation>分数未缩放</translation>
        </message>
        <message>
            <source>temperature %1</source>
            <translation>温度 %1</translation>
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
            <source>Contents</source>
            <translation>目录</translation>
        </message>
        <message>
            <source>%1 (continued)</source>
            <translation>%1（续）</translation>
        </message>
        <message>
            <source>%1 × %2: too many numbers to print at a readable size, shown as a heatmap</source>
            <translation>%1 × %2：数字太多，无法以可读的字号打印，以热力图显示</translation>
        </message>
        <message>
            <source>Self-attention</source>
            <translation>自注意力</translation>
        </message>
        <message>
            <source>The report could not be painted</source>
            <translation>无法绘制报告</translation>
        </message>
        <message>
            <source>X: n × d_model,   W_Q: d_model × h·d_k,   W_K: d_model × h_kv·d_k,   W_V: d_model × h_kv·d_v%1</source>
            <translation>X: n × d_model,   W_Q: d_model × h·d_k,   W_K: d_model × h_kv·d_k,   W_V: d_model × h_kv·d_v%1</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt; before the turn</source>
            <translation>旋转前的 &lt;i&gt;Q&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;K&lt;/i&gt; before the turn</source>
            <translation>旋转前的 &lt;i&gt;K&lt;/i&gt;</translation>
        </message>
    </context>
    <context>
        <name>SlidePainter</name>
        <message>
            <source>%1 / %2</source>
            <translation>%1 / %2</translation>
        </message>
        <message>
            <source>There are no slides to write</source>
            <translation>没有可写入的幻灯片</translation>
        </message>
        <message>
            <source>The slides could not be painted</source>
            <translation>无法绘制幻灯片</translation>
        </message>
        <message>
            <source>The largest size at which this slide fits</source>
            <translation>这张幻灯片能容下的最大字号</translation>
        </message>
        <message>
            <source>… 1 more line: Ctrl − shows it</source>
            <translation>… 另有 1 行：按 Ctrl − 显示</translation>
        </message>
        <message>
            <source>… %1 more lines: Ctrl − shows them</source>
            <translation>… 另有 %1 行：按 Ctrl − 显示</translation>
        </message>
    </context>
    <context>
        <name>Steps</name>
        <message>
            <source>Embeddings X</source>
            <translation>嵌入 X</translation>
        </message>
        <message>
            <source>Queries Q</source>
            <translation>查询 Q</translation>
        </message>
        <message>
            <source>Keys K</source>
            <translation>键 K</translation>
        </message>
        <message>
            <source>Values V</source>
            <translation>值 V</translation>
        </message>
        <message>
            <source>Scores Q·Kᵀ</source>
            <translation>分数 Q·Kᵀ</translation>
        </message>
        <message>
            <source>Scaled scores</source>
            <translation>缩放后的分数</translation>
        </message>
        <message>
            <source>Attention weights</source>
            <translation>注意力权重</translation>
        </message>
        <message>
            <source>Outputs Z</source>
            <translation>输出 Z</translation>
        </message>
        <message>
            <source>Concatenated heads</source>
            <translation>拼接的各头</translation>
        </message>
        <message>
            <source>Output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>Query weights W_Q</source>
            <translation>查询权重 W_Q</translation>
        </message>
        <message>
            <source>Key weights W_K</source>
            <translation>键权重 W_K</translation>
        </message>
        <message>
            <source>Value weights W_V</source>
            <translation>值权重 W_V</translation>
        </message>
        <message>
            <source>Output weights W_O</source>
            <translation>输出权重 W_O</translation>
        </message>
        <message>
            <source>query</source>
            <translation>查询</translation>
        </message>
        <message>
            <source>key</source>
            <translation>键</translation>
        </message>
        <message>
            <source>token</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>row</source>
            <translation>行</translation>
        </message>
        <message>
            <source>column</source>
            <translation>列</translation>
        </message>
        <message>
            <source>%1 · head %2</source>
            <translation>%1 · 第 %2 头</translation>
        </message>
        <message>
            <source>score</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>scaled</source>
            <translation>缩放</translation>
        </message>
        <message>
            <source>concat</source>
            <translation>拼接</translation>
        </message>
        <message>
            <source>out</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>[head %1]</source>
            <translation>[第 %1 头]</translation>
        </message>
        <message>
            <source> of head %1</source>
            <translation>（第 %1 头）</translation>
        </message>
        <message>
            <source>… (%1 more)</source>
            <translation>…（另有 %1 项）</translation>
        </message>
        <message>
            <source>(causal mask: key %1 comes after query %2)</source>
            <translation>（因果掩码：键 %1 在查询 %2 之后）</translation>
        </message>
        <message>
            <source>Queries Q before the rotation</source>
            <translation>旋转前的查询 Q</translation>
        </message>
        <message>
            <source>Keys K before the rotation</source>
            <translation>旋转前的键 K</translation>
        </message>
    </context>
    <context>
        <name>StepWording</name>
        <message>
            <source>Tokens → X</source>
            <translation>词元 → X</translation>
        </message>
        <message>
            <source>&lt;i&gt;X&lt;/i&gt; = embedding(tokens) + PE &amp;nbsp;&amp;nbsp; one row per token</source>
            <translation>&lt;i&gt;X&lt;/i&gt; = 嵌入(词元) + PE &amp;nbsp;&amp;nbsp; 每个词元一行</translation>
        </message>
        <message>
            <source>&lt;i&gt;X&lt;/i&gt; = embedding(tokens) &amp;nbsp;&amp;nbsp; one row per token</source>
            <translation>&lt;i&gt;X&lt;/i&gt; = 嵌入(词元) &amp;nbsp;&amp;nbsp; 每个词元一行</translation>
        </message>
        <message>
            <source>n × d_model</source>
            <translation>n × d_model</translation>
        </message>
        <message>
            <source>Each token is a row of numbers. The model only ever sees these numbers: everything that follows is arithmetic on the rows of X.</source>
            <translation>每个词元是一行数字。模型看到的只有这些数字：之后的一切都是对 X 各行的算术。</translation>
        </message>
        <message>
            <source>Each token becomes a row of numbers, its embedding. A pattern of sines and cosines that depends only on the position is added to it, so the same word in two places gets two different rows: attention itself does not know the order of the tokens.</source>
            <translation>每个词元变成一行数字，即它的嵌入。再加上一组只取决于位置的正弦和余弦，于是同一个词出现在两个位置会得到两行不同的数字：注意力本身并不知道词元的顺序。</translation>
        </message>
        <message>
            <source> PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).</source>
            <translation> PE(pos, 2i) = sin(pos / 10000^(2i/d_model))，PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))。</translation>
        </message>
        <message>
            <source>Each token becomes a row of numbers, its embedding. Everything that follows is arithmetic on these rows: one row per token, one column per feature.</source>
            <translation>每个词元变成一行数字，即它的嵌入。之后的一切都是对这些行的算术：每个词元一行，每个特征一列。</translation>
        </message>
        <message>
            <source>Queries, keys and values</source>
            <translation>查询、键和值</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;Q&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;K&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;K&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;V&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;V&lt;/sub&gt;</source>
            <translation>&lt;i&gt;Q&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;Q&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;K&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;K&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;V&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;V&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;Q&lt;/sub&gt;%1 &amp;nbsp;&amp;nbsp; &lt;i&gt;K&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;K&lt;/sub&gt;%2 &amp;nbsp;&amp;nbsp; &lt;i&gt;V&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;V&lt;/sub&gt;%3</source>
            <translation>&lt;i&gt;Q&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;Q&lt;/sub&gt;%1 &amp;nbsp;&amp;nbsp; &lt;i&gt;K&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;K&lt;/sub&gt;%2 &amp;nbsp;&amp;nbsp; &lt;i&gt;V&lt;/i&gt; = &lt;i&gt;X&lt;/i&gt;·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;V&lt;/sub&gt;%3</translation>
        </message>
        <message>
            <source>Q, K: n × d_k · V: n × d_v</source>
            <translation>Q、K：n × d_k · V：n × d_v</translation>
        </message>
        <message>
            <source>Three weight matrices turn every token into three new rows: a query (what it looks for), a key (what it offers to be found by) and a value (what it passes on).</source>
            <translation>三个权重矩阵把每个词元变成三个新行：查询（它在寻找什么）、键（它凭什么被找到）和值（它传递什么）。</translation>
        </message>
        <message>
            <source>Three weight matrices turn every row of X into three new rows. The query q_i says what token i is looking for, the key k_j what token j offers, and the value v_j what token j passes on when it is attended to.</source>
            <translation>三个权重矩阵把 X 的每一行变成三个新行。查询 q_i 表示词元 i 在寻找什么，键 k_j 表示词元 j 能提供什么，值 v_j 表示词元 j 被关注时传递出去的内容。</translation>
        </message>
        <message>
            <source> With %1 heads, head i uses its own block of d_k columns of W_Q and W_K and d_v columns of W_V.</source>
            <translation> 共有 %1 个头时，第 i 个头使用 W_Q 和 W_K 中属于它的 d_k 列，以及 W_V 中属于它的 d_v 列。</translation>
        </message>
        <message>
            <source> Each product then gets its bias added, one row b that is the same for every token.</source>
            <translation> 每个乘积再加上各自的偏置：一行 b，对每个词元都相同。</translation>
        </message>
        <message>
            <source>Scores</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>scores = &lt;i&gt;Q&lt;/i&gt;·&lt;i&gt;K&lt;/i&gt;ᵀ &amp;nbsp;&amp;nbsp; score(&lt;i&gt;i&lt;/i&gt;,&lt;i&gt;j&lt;/i&gt;) = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt;·&lt;i&gt;k&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</source>
            <translation>分数 = &lt;i&gt;Q&lt;/i&gt;·&lt;i&gt;K&lt;/i&gt;ᵀ &amp;nbsp;&amp;nbsp; 分数(&lt;i&gt;i&lt;/i&gt;,&lt;i&gt;j&lt;/i&gt;) = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt;·&lt;i&gt;k&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>n × n: rows are queries, columns keys</source>
            <translation>n × n：行是查询，列是键</translation>
        </message>
        <message>
            <source>The query of one token is compared with the key of every token by a dot product. A large score means: this key matches what the query looks for.</source>
            <translation>一个词元的查询通过点积与每个词元的键比较。分数大意味着：这个键符合查询所寻找的内容。</translation>
        </message>
        <message>
            <source>Every query is compared with every key by a dot product: multiply them entry by entry and add up. A large score means that token i's query and token j's key point the same way, so token i will pay attention to token j.</source>
            <translation>每个查询都通过点积与每个键比较：逐个元素相乘再求和。分数大意味着词元 i 的查询与词元 j 的键方向一致，因此词元 i 会关注词元 j。</translation>
        </message>
        <message>
            <source>Divide by √d_k</source>
            <translation>除以 √d_k</translation>
        </message>
        <message>
            <source>scaled = scores</source>
            <translation>缩放后 = 分数</translation>
        </message>
        <message>
            <source> ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt; = scores ÷ √%1</source>
            <translation> ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt; = 分数 ÷ √%1</translation>
        </message>
        <message>
            <source> ÷ &lt;i&gt;T&lt;/i&gt; (&lt;i&gt;T&lt;/i&gt; = %1)</source>
            <translation> ÷ &lt;i&gt;T&lt;/i&gt;（&lt;i&gt;T&lt;/i&gt; = %1）</translation>
        </message>
        <message>
            <source> (skipped: scaling is off)</source>
            <translation>（已跳过：缩放已关闭）</translation>
        </message>
        <message>
            <source>n × n</source>
            <translation>n × n</translation>
        </message>
        <message>
            <source>Dot products of long vectors grow with their length d_k. Dividing by √d_k keeps them near 1, so the softmax in the next step does not saturate.</source>
            <translation>长向量的点积随长度 d_k 增大。除以 √d_k 让它们保持在 1 左右，这样下一步的 softmax 就不会饱和。</translation>
        </message>
        <message>
            <source>The worked example skips this step, so the scores go to the softmax as they are. Switch scaling on to divide them by √d_k = √%1.</source>
            <translation>这个示例跳过了此步骤，所以分数原样进入 softmax。打开缩放即可将其除以 √d_k = √%1。</translation>
        </message>
        <message>
            <source>Scaling is off, as in the worked example, so the scores are divided by the temperature T = %1 alone. Switch scaling on to divide them by √d_k = √%2 as well.</source>
            <translation>缩放已关闭（与示例相同），所以分数只除以温度 T = %1。打开缩放即可再除以 √d_k = √%2。</translation>
        </message>
        <message>
            <source>The dot product of two random vectors with d_k entries grows like √d_k: the longer the vectors, the more extreme the scores, and the softmax of extreme scores puts almost all weight on one key and has almost no gradient to learn from. Dividing by √d_k keeps the scores near unit size whatever d_k is.</source>
            <translation>两个有 d_k 个元素的随机向量的点积按 √d_k 增长：向量越长，分数越极端；而极端分数的 softmax 几乎把全部权重放在一个键上，梯度也几乎为零，无从学习。除以 √d_k 后，无论 d_k 多大，分数都保持在 1 左右。</translation>
        </message>
        <message>
            <source> This session leaves the scaling off, so the scores pass through unchanged.</source>
            <translation> 本会话关闭了缩放，所以分数原样通过。</translation>
        </message>
        <message>
            <source> This session leaves the scaling off, so only the temperature divides the scores.</source>
            <translation> 本会话关闭了缩放，所以只有温度除分数。</translation>
        </message>
        <message>
            <source> Dividing by the temperature T as well makes the weights softer (T &gt; 1) or sharper (T &lt; 1).</source>
            <translation> 再除以温度 T，会让权重更平缓（T &gt; 1）或更尖锐（T &lt; 1）。</translation>
        </message>
        <message>
            <source>Softmax</source>
            <translation>Softmax</translation>
        </message>
        <message>
            <source>weights = softmax(%1), row by row: &lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt; = exp(&lt;i&gt;s&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt;) ÷ Σ&lt;sub&gt;k&lt;/sub&gt; exp(&lt;i&gt;s&lt;/i&gt;&lt;sub&gt;ik&lt;/sub&gt;)</source>
            <translation>权重 = softmax(%1)，逐行计算：&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt; = exp(&lt;i&gt;s&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt;) ÷ Σ&lt;sub&gt;k&lt;/sub&gt; exp(&lt;i&gt;s&lt;/i&gt;&lt;sub&gt;ik&lt;/sub&gt;)</translation>
        </message>
        <message>
            <source>scaled</source>
            <translation>缩放后</translation>
        </message>
        <message>
            <source>scores</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>n × n, every row sums to 1</source>
            <translation>n × n，每行之和为 1</translation>
        </message>
        <message>
            <source>Each row becomes positive weights that add up to 1. Under the causal mask a token may only look back: the weights of later tokens are exactly 0.</source>
            <translation>每一行变成和为 1 的正权重。在因果掩码下，词元只能向前看：之后词元的权重恰好为 0。</translation>
        </message>
        <message>
            <source>Each row becomes positive weights that add up to 1: how much attention this token pays to each of the others.</source>
            <translation>每一行变成和为 1 的正权重：表示这个词元对其他每个词元投入多少注意力。</translation>
        </message>
        <message>
            <source>The softmax turns each row of scaled scores into weights: positive numbers that add up to 1, the larger the score the larger its share. Subtracting the row's maximum first changes nothing in the result but keeps exp from overflowing.</source>
            <translation>softmax 把缩放后分数的每一行变成权重：和为 1 的正数，分数越大，所占份额越大。先减去该行的最大值不会改变结果，但能防止 exp 溢出。</translation>
        </message>
        <message>
            <source> Under the causal mask a token may only look at itself and the tokens before it: every weight above the diagonal is exactly 0.</source>
            <translation> 在因果掩码下，词元只能看到自己和它之前的词元：对角线以上的每个权重都恰好为 0。</translation>
        </message>
        <message>
            <source>Causal mask: a query sees only itself and the keys before it; later keys get weight 0.</source>
            <translation>因果掩码：查询只能看到自己和它之前的键；之后的键权重为 0。</translation>
        </message>
        <message>
            <source>Weighted values</source>
            <translation>加权值</translation>
        </message>
        <message>
            <source>&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt; · &lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt; for every key &lt;i&gt;j&lt;/i&gt;</source>
            <translation>对每个键 &lt;i&gt;j&lt;/i&gt;：&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt; · &lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>n × d_v for each query, one row per key</source>
            <translation>每个查询 n × d_v，每个键一行</translation>
        </message>
        <message>
            <source>Every value row is multiplied by the weight the query gave its token. Rows with a weight near 0 all but vanish.</source>
            <translation>每个值行乘以查询给该词元的权重。权重接近 0 的行几乎消失。</translation>
        </message>
        <message>
            <source>Each query now takes every value vector v_j and multiplies it by the weight it gave to token j. Values of tokens it barely attends to shrink to almost nothing; the ones it attends to keep most of their size.</source>
            <translation>现在每个查询取出每个值向量 v_j，乘以它给词元 j 的权重。几乎不被关注的词元，其值缩小到几乎为零；被关注的词元则保留大部分大小。</translation>
        </message>
        <message>
            <source>Sum → Z</source>
            <translation>求和 → Z</translation>
        </message>
        <message>
            <source>&lt;i&gt;z&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; &lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt;·&lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;Z&lt;/i&gt; = weights·&lt;i&gt;V&lt;/i&gt;</source>
            <translation>&lt;i&gt;z&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; &lt;i&gt;w&lt;/i&gt;&lt;sub&gt;ij&lt;/sub&gt;·&lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt; &amp;nbsp;&amp;nbsp; &lt;i&gt;Z&lt;/i&gt; = 权重·&lt;i&gt;V&lt;/i&gt;</translation>
        </message>
        <message>
            <source> &amp;nbsp;&amp;nbsp; output = concat(&lt;i&gt;Z&lt;/i&gt;)·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</source>
            <translation> &amp;nbsp;&amp;nbsp; 输出 = 拼接(&lt;i&gt;Z&lt;/i&gt;)·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</translation>
        </message>
        <message>
            <source> &amp;nbsp;&amp;nbsp; output = concat(&lt;i&gt;Z&lt;/i&gt;)·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt; + &lt;i&gt;b&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</source>
            <translation> &amp;nbsp;&amp;nbsp; 输出 = 拼接(&lt;i&gt;Z&lt;/i&gt;)·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt; + &lt;i&gt;b&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</translation>
        </message>
        <message>
            <source> &amp;nbsp;&amp;nbsp; output = concat(&lt;i&gt;Z&lt;/i&gt; of every head)</source>
            <translation> &amp;nbsp;&amp;nbsp; 输出 = 拼接(各个头的 &lt;i&gt;Z&lt;/i&gt;)</translation>
        </message>
        <message>
            <source>n × d_v</source>
            <translation>n × d_v</translation>
        </message>
        <message>
            <source>Adding the weighted rows gives one new row for this token: a blend of the values of the tokens it attended to.</source>
            <translation>把加权后的行相加，得到这个词元的一个新行：它所关注词元的值的混合。</translation>
        </message>
        <message>
            <source>Adding up the weighted values of each query gives its output row z_i: a blend of the values of the tokens it attended to. This is the new representation of token i, informed by the whole sequence.</source>
            <translation>把每个查询的加权值相加，就得到它的输出行 z_i：它所关注词元的值的混合。这就是词元 i 的新表示，融合了整个序列的信息。</translation>
        </message>
        <message>
            <source>%1 · %2</source>
            <translation>%1 · %2</translation>
        </message>
        <message>
            <source>Step %1 · %2</source>
            <translation>步骤 %1 · %2</translation>
        </message>
        <message>
            <source>Concatenate the heads and project</source>
            <translation>拼接各头并投影</translation>
        </message>
        <message>
            <source>concat = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;] &amp;nbsp;&amp;nbsp; output = concat·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</source>
            <translation>拼接 = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;] &amp;nbsp;&amp;nbsp; 输出 = 拼接·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>concat = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;] &amp;nbsp;&amp;nbsp; output = concat·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt; + &lt;i&gt;b&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</source>
            <translation>拼接 = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;] &amp;nbsp;&amp;nbsp; 输出 = 拼接·&lt;i&gt;W&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt; + &lt;i&gt;b&lt;/i&gt;&lt;sub&gt;O&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>output = concat = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;]</source>
            <translation>输出 = 拼接 = [&lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;1&lt;/sub&gt; … &lt;i&gt;Z&lt;/i&gt;&lt;sub&gt;h&lt;/sub&gt;]</translation>
        </message>
        <message>
            <source>The outputs of the heads are set side by side, one block of columns per head.</source>
            <translation>各个头的输出并排放在一起，每个头占一块列。</translation>
        </message>
        <message>
            <source> The output projection W_O then mixes what the heads found into one row per token.</source>
            <translation> 随后输出投影 W_O 把各个头的发现混合成每个词元一行。</translation>
        </message>
        <message>
            <source> Its bias b_O is added to every row.</source>
            <translation> 再给每一行加上它的偏置 b_O。</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt;·&lt;i&gt;K&lt;/i&gt;ᵀ</source>
            <translation>&lt;i&gt;Q&lt;/i&gt;·&lt;i&gt;K&lt;/i&gt;ᵀ</translation>
        </message>
        <message>
            <source> ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt;</source>
            <translation> ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt;</translation>
        </message>
        <message>
            <source> ÷ &lt;i&gt;T&lt;/i&gt;</source>
            <translation> ÷ &lt;i&gt;T&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;Z&lt;/i&gt; = softmax(%1)·&lt;i&gt;V&lt;/i&gt;</source>
            <translation>&lt;i&gt;Z&lt;/i&gt; = softmax(%1)·&lt;i&gt;V&lt;/i&gt;</translation>
        </message>
        <message>
            <source>query %1 “%2”</source>
            <translation>查询 %1 “%2”</translation>
        </message>
        <message>
            <source>Residual stream → X</source>
            <translation>残差流 → X</translation>
        </message>
        <message>
            <source> RMSNorm divides each row by its root mean square, then multiplies it by its learnt gain.</source>
            <translation>RMSNorm 把每一行除以它的均方根，再乘以学到的增益。</translation>
        </message>
        <message>
            <source> LayerNorm gives each row mean 0 and variance 1, then its learnt gain and bias.</source>
            <translation>LayerNorm 使每一行均值为 0、方差为 1，再乘以学到的增益并加上偏置。</translation>
        </message>
        <message>
            <source>In layer 1 the residual stream is the token embedding of %1 alone.</source>
            <translation>在第 1 层，残差流只是 %1 的词元嵌入。</translation>
        </message>
        <message>
            <source>In layer 1 the residual stream is the token embedding plus the position embedding of %1.</source>
            <translation>在第 1 层，残差流就是 %1 的词元嵌入加位置嵌入。</translation>
        </message>
        <message>
            <source>The residual stream entering layer 2 of %1 is the embeddings plus the output of layer 1.</source>
            <translation>进入 %1 第 2 层的残差流是嵌入加上第 1 层的输出。</translation>
        </message>
        <message>
            <source>The residual stream entering layer %1 of %2 is the embeddings plus the outputs of layers 1 to %3.</source>
            <translation>进入 %2 第 %1 层的残差流是嵌入加上第 1 至 %3 层的输出。</translation>
        </message>
        <message>
            <source> No position is added to X: step 2 turns each query and key by its position (rotary positions).</source>
            <translation>X 中没有加入位置：第 2 步按位置旋转每个查询和键（旋转位置编码）。</translation>
        </message>
        <message>
            <source> Each head's q and k rows are then divided by their root mean square and multiplied by a learnt gain (q/k norm).</source>
            <translation>随后每个头的 q 和 k 行除以各自的均方根，再乘以学到的增益（q/k 归一化）。</translation>
        </message>
        <message>
            <source> Then each query and key is turned by its position p: the pair of dimensions (i, i + %1) by the angle p·θ_i, with θ_i = %2^(−2i/%3); </source>
            <translation>然后每个查询和键按其位置 p 旋转：维度对 (i, i + %1) 转过角度 p·θ_i，其中 θ_i = %2^(−2i/%3)；</translation>
        </message>
        <message>
            <source>the last %1 of the %2 dimensions stay as they are. </source>
            <translation>%2 个维度中的最后 %1 个保持不变。</translation>
        </message>
        <message>
            <source>Turning both by their positions makes q_i·k_j depend on how far apart the two tokens are, not on where they stand.</source>
            <translation>两者都按位置旋转后，q_i·k_j 只取决于两个词元相距多远，而不取决于它们所在的位置。</translation>
        </message>
        <message>
            <source> The %1 query heads share %2 K/V heads: every %3 query heads read the same keys and values.</source>
            <translation>%1 个查询头共享 %2 个 K/V 头：每 %3 个查询头读取同一组键和值。</translation>
        </message>
        <message>
            <source>&lt;i&gt;X&lt;/i&gt; = %1(residual stream entering layer %2)</source>
            <translation>&lt;i&gt;X&lt;/i&gt; = %1(进入第 %2 层的残差流)</translation>
        </message>
        <message>
            <source>Each token's row is what the layers before this one made of it (its token embedding plus every earlier layer's output), normalised by this layer's %1. Positions enter in step 2, as turns of q and k.</source>
            <translation>每个词元的行是此前各层对它的加工结果（词元嵌入加上前面每一层的输出），再经本层的 %1 归一化。位置在第 2 步进入，即对 q 和 k 的旋转。</translation>
        </message>
        <message>
            <source>Each token's row is what the layers before this one made of it (token and position embeddings plus every earlier layer's output), normalised by this layer's %1.</source>
            <translation>每个词元的行是此前各层对它的加工结果（词元嵌入和位置嵌入，加上前面每一层的输出），再经本层的 %1 归一化。</translation>
        </message>
        <message>
            <source> &amp;nbsp;&amp;nbsp; &lt;i&gt;q&lt;/i&gt;, &lt;i&gt;k&lt;/i&gt; ← RMSNorm(&lt;i&gt;q&lt;/i&gt;), RMSNorm(&lt;i&gt;k&lt;/i&gt;)</source>
            <translation> &amp;nbsp;&amp;nbsp; &lt;i&gt;q&lt;/i&gt;, &lt;i&gt;k&lt;/i&gt; ← RMSNorm(&lt;i&gt;q&lt;/i&gt;), RMSNorm(&lt;i&gt;k&lt;/i&gt;)</translation>
        </message>
        <message>
            <source> &amp;nbsp;&amp;nbsp; &lt;i&gt;q&lt;/i&gt;′&lt;sub&gt;i&lt;/sub&gt; = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt;·cos(&lt;i&gt;p&lt;/i&gt;·θ&lt;sub&gt;i&lt;/sub&gt;) − &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i+d/2&lt;/sub&gt;·sin(&lt;i&gt;p&lt;/i&gt;·θ&lt;sub&gt;i&lt;/sub&gt;), and the same for &lt;i&gt;k&lt;/i&gt;</source>
            <translation> &amp;nbsp;&amp;nbsp; &lt;i&gt;q&lt;/i&gt;′&lt;sub&gt;i&lt;/sub&gt; = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i&lt;/sub&gt;·cos(&lt;i&gt;p&lt;/i&gt;·θ&lt;sub&gt;i&lt;/sub&gt;) − &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;i+d/2&lt;/sub&gt;·sin(&lt;i&gt;p&lt;/i&gt;·θ&lt;sub&gt;i&lt;/sub&gt;)，&lt;i&gt;k&lt;/i&gt; 同理</translation>
        </message>
        <message>
            <source> Then each query and key is turned by an angle that grows with its position, so a score depends on how far apart two tokens are.</source>
            <translation>然后每个查询和键按随位置增大的角度旋转，因此分数取决于两个词元相距多远。</translation>
        </message>
        <message>
            <source>Rotary positions: q and k are turned by their positions before the scores are taken.</source>
            <translation>旋转位置编码：计算分数之前，q 和 k 先按各自的位置旋转。</translation>
        </message>
        <message>
            <source>sinusoidal positional encoding</source>
            <translation>正弦位置编码</translation>
        </message>
        <message>
            <source>rotary positions (θ = %1, %2 of %3 dimensions turned)</source>
            <translation>旋转位置编码（θ = %1，%3 个维度中旋转 %2 个）</translation>
        </message>
        <message>
            <source>no positional encoding</source>
            <translation>无位置编码</translation>
        </message>
        <message>
            <source>%1 K/V heads shared by %2 query heads</source>
            <translation>%1 个 K/V 头由 %2 个查询头共享</translation>
        </message>
        <message>
            <source>q/k norm</source>
            <translation>q/k 归一化</translation>
        </message>
        <message>
            <source>K/V head %1 · query heads %2–%3</source>
            <translation>K/V 头 %1 · 查询头 %2–%3</translation>
        </message>
    </context>
    <context>
        <name>Teaching</name>
        <message>
            <source>Each query and key is turned by its position p: the pair of dimensions (i, i + d/2) by the angle p·θ_i. The values are not turned.</source>
            <translation>每个查询和键都按其位置 p 旋转：维度对 (i, i + d/2) 旋转角度 p·θ_i。值不旋转。</translation>
        </message>
        <message>
            <source>%1 (%2 … %3 are not drawn; concat holds every head.)</source>
            <translation>%1（%2 … %3 未画出；拼接包含每个头。）</translation>
        </message>
        <message>
            <source>… and %1 more</source>
            <translation>… 另有 %1 项</translation>
        </message>
        <message>
            <source>scores</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>scaled</source>
            <translation>缩放后</translation>
        </message>
        <message>
            <source>weights</source>
            <translation>权重</translation>
        </message>
        <message>
            <source>weighted values</source>
            <translation>加权值</translation>
        </message>
        <message>
            <source>Every token at once</source>
            <translation>所有词元同时计算</translation>
        </message>
        <message>
            <source>The same steps run for every query together: one matrix product for the scores, a softmax per row, and one product with V.</source>
            <translation>同样的步骤对所有查询一起进行：一次矩阵乘法得到分数，每行一次 softmax，再与 V 相乘一次。</translation>
        </message>
        <message>
            <source>%1 · %2</source>
            <translation>%1 · %2</translation>
        </message>
        <message>
            <source>… (%1 more)</source>
            <translation>…（另有 %1 项）</translation>
        </message>
        <message>
            <source>%1 = 0: key %2 comes after query %3 (causal mask)</source>
            <translation>%1 = 0：键 %2 在查询 %3 之后（因果掩码）</translation>
        </message>
        <message>
            <source>%1 · head %2</source>
            <translation>%1 · 第 %2 头</translation>
        </message>
        <message>
            <source> (masked)</source>
            <translation>（已屏蔽）</translation>
        </message>
        <message>
            <source>concat</source>
            <translation>拼接</translation>
        </message>
        <message>
            <source>output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>%1 · layer %2 of %3 · %4</source>
            <translation>%1 · 第 %2 层（共 %3 层）· %4</translation>
        </message>
    </context>
    <context>
        <name>ui::Autosave</name>
        <message>
            <source>cannot write %1: %2</source>
            <translation>无法写入 %1：%2</translation>
        </message>
        <message>
            <source>cannot create the folder %1</source>
            <translation>无法创建文件夹 %1</translation>
        </message>
        <message>
            <source>cannot lock %1</source>
            <translation>无法锁定 %1</translation>
        </message>
        <message>
            <source>Autosave failed: %1. Unsaved changes are not protected against a crash; save them yourself.</source>
            <translation>自动保存失败：%1。未保存的更改在程序崩溃时得不到保护，请自行保存。</translation>
        </message>
    </context>
    <context>
        <name>ui::Document</name>
    <message>
        <source>The checkpoint fixes the options of a model session.</source>
        <translation>检查点固定了模型会话的选项。</translation>
    </message>
    <message>
        <source>There is no such cell.</source>
        <translation>没有这个单元格。</translation>
    </message>
    <message>
        <source>There is no such head.</source>
        <translation>没有这个头。</translation>
    </message>
    <message>
        <source>X is the layer's attention norm output, not a weight.</source>
        <translation>X 是该层注意力前归一化的输出，不是权重。</translation>
    </message>
    <message>
        <source>Only a model's heads can be zeroed.</source>
        <translation>只有模型的头可以置零。</translation>
    </message>
    <message>
        <source>Only a model's weights can be reset to a checkpoint.</source>
        <translation>只有模型的权重可以重置为检查点中的值。</translation>
    </message>
        <message>
            <source>Type at least one token: attention needs something to attend to.</source>
            <translation>请至少输入一个词元：注意力需要有可以关注的对象。</translation>
        </message>
        <message>
            <source>%1 tokens is more than the %2 this program accepts.</source>
            <translation>%1 个词元超过了本程序接受的上限 %2 个。</translation>
        </message>
        <message>
            <source>Edit tokens</source>
            <translation type="vanished">编辑词元</translation>
        </message>
        <message>
            <source>Change options</source>
            <translation type="vanished">更改选项</translation>
        </message>
        <message>
            <source>Change dimensions</source>
            <translation type="vanished">更改维度</translation>
        </message>
        <message>
            <source>Add W_O</source>
            <translation type="vanished">添加 W_O</translation>
        </message>
        <message>
            <source>Remove W_O</source>
            <translation type="vanished">移除 W_O</translation>
        </message>
        <message>
            <source>%1: cannot be written: %2</source>
            <translation type="vanished">%1：无法写入：%2</translation>
        </message>
        <message>
            <source>%1: saving failed: %2</source>
            <translation>%1：保存失败：%2</translation>
        </message>
        <message>
            <source>Saved %1</source>
            <translation>已保存 %1</translation>
        </message>
        <message>
            <source>Changed %1 row %2, column %3 to %4</source>
            <translation>将 %1 第 %2 行第 %3 列改为 %4</translation>
        </message>
        <message>
            <source>, </source>
            <translation>，</translation>
        </message>
        <message>
            <source>; </source>
            <translation>；</translation>
        </message>
        <message>
            <source>Added W_O (%1 × %2)</source>
            <translation>已添加 W_O（%1 × %2）</translation>
        </message>
        <message>
            <source>Changed %1</source>
            <translation>将%1</translation>
        </message>
        <message>
            <source>Changed d_out to %1</source>
            <translation>将 d_out 改为 %1</translation>
        </message>
        <message>
            <source>Changed the dimensions</source>
            <translation>已更改维度</translation>
        </message>
        <message>
            <source>Changed the options</source>
            <translation>已更改选项</translation>
        </message>
        <message>
            <source>Changed the temperature to %1</source>
            <translation>将温度改为 %1</translation>
        </message>
        <message>
            <source>Changed the tokens to “%1”</source>
            <translation>将词元改为“%1”</translation>
        </message>
        <message>
            <source>Changed the text to “%1”</source>
            <translation>将文本改为“%1”</translation>
        </message>
        <message>
            <source>Removed W_O</source>
            <translation>已移除 W_O</translation>
        </message>
        <message>
            <source>There is no W_O: add the output projection first.</source>
            <translation>没有 W_O：请先添加输出投影。</translation>
        </message>
        <message>
            <source>Turned off dividing the scores by √d_k</source>
            <translation>已关闭分数除以 √d_k</translation>
        </message>
        <message>
            <source>Turned off the causal mask</source>
            <translation>已关闭因果掩码</translation>
        </message>
        <message>
            <source>Turned off the positional encoding</source>
            <translation>已关闭位置编码</translation>
        </message>
        <message>
            <source>Turned on dividing the scores by √d_k</source>
            <translation>已开启分数除以 √d_k</translation>
        </message>
        <message>
            <source>Turned on the causal mask</source>
            <translation>已开启因果掩码</translation>
        </message>
        <message>
            <source>Turned on the sinusoidal positional encoding</source>
            <translation>已开启正弦位置编码</translation>
        </message>
        <message>
            <source>d_k to %1</source>
            <translation>d_k 改为 %1</translation>
        </message>
        <message>
            <source>d_model to %1</source>
            <translation>d_model 改为 %1</translation>
        </message>
        <message>
            <source>d_out must be at least 1.</source>
            <translation>d_out 至少为 1。</translation>
        </message>
        <message>
            <source>d_v to %1</source>
            <translation>d_v 改为 %1</translation>
        </message>
        <message>
            <source>the heads to %1</source>
            <translation>头数改为 %1</translation>
        </message>
        <message>
            <source>The checkpoint fixes the dimensions of a model session.</source>
            <translation>模型会话的维度由检查点决定，不能更改。</translation>
        </message>
        <message>
            <source>The text is %1 tokens; %2 reads at most %3 (its %4). The text is kept as it was.</source>
            <translation>这段文本有 %1 个词元；%2 最多读取 %3 个（它的 %4）。文本保持原样。</translation>
        </message>
        <message>
            <source>The text cannot be read: %1. The text is kept as it was.</source>
            <translation>无法读取这段文本：%1。文本保持原样。</translation>
        </message>
        <message>
            <source>Zeroed head %1 of layer %2</source>
            <translation>已将第 %2 层的第 %1 个头置零</translation>
        </message>
        <message>
            <source>Reset layer %1 to the checkpoint</source>
            <translation>已将第 %1 层恢复为检查点</translation>
        </message>
        <message>
            <source>Reset every layer to the checkpoint</source>
            <translation>已将每一层恢复为检查点</translation>
        </message>
        <message>
            <source>Changed %1 column %2 to %3</source>
            <translation>将 %1 第 %2 列改为 %3</translation>
        </message>
        <message>
            <source>Turned on rotary positions</source>
            <translation>已开启旋转位置编码</translation>
        </message>
        <message>
            <source>Changed the rotary θ to %1</source>
            <translation>已把旋转 θ 改为 %1</translation>
        </message>
        <message>
            <source>Changed the rotated share to %1</source>
            <translation>已把旋转比例改为 %1</translation>
        </message>
        <message>
            <source>Turned on q/k norm</source>
            <translation>已开启 q/k 归一化</translation>
        </message>
        <message>
            <source>Turned off q/k norm</source>
            <translation>已关闭 q/k 归一化</translation>
        </message>
        <message>
            <source>the K/V heads must divide the heads (%1)</source>
            <translation>K/V 头数必须整除头数（%1）</translation>
        </message>
        <message>
            <source>Set the K/V heads to %1</source>
            <translation>已把 K/V 头数设为 %1</translation>
        </message>
    </context>
    <context>
        <name>ui::FileActions</name>
        <message>
            <source>There is no heatmap to export: %1</source>
            <translation>没有可导出的热力图：%1</translation>
        </message>
        <message>
            <source>Nothing to export</source>
            <translation>没有可导出的内容</translation>
        </message>
        <message>
            <source>PNG image (*.png)</source>
            <translation>PNG 图像 (*.png)</translation>
        </message>
        <message>
            <source>SVG drawing (*.svg)</source>
            <translation>SVG 矢量图 (*.svg)</translation>
        </message>
        <message>
            <source>PDF document (*.pdf)</source>
            <translation>PDF 文档 (*.pdf)</translation>
        </message>
        <message>
            <source>Export Heatmap</source>
            <translation>导出热力图</translation>
        </message>
        <message>
            <source>Width of the PNG in pixels (the height follows the figure):</source>
            <translation>PNG 的宽度（像素，高度随图形比例）：</translation>
        </message>
        <message>
            <source>Could not export the heatmap</source>
            <translation>无法导出热力图</translation>
        </message>
        <message>
            <source>Exported %1</source>
            <translation>已导出 %1</translation>
        </message>
        <message>
            <source>Copied the heatmap (%1 × %2 pixels)</source>
            <translation>已复制热力图（%1 × %2 像素）</translation>
        </message>
        <message>
            <source>Export Report</source>
            <translation>导出报告</translation>
        </message>
        <message>
            <source>Could not write the report</source>
            <translation>无法写入报告</translation>
        </message>
        <message>
            <source>Wrote the report %1</source>
            <translation>已写入报告 %1</translation>
        </message>
        <message>
            <source>Export Handout</source>
            <translation>导出讲义</translation>
        </message>
        <message>
            <source>Could not write the handout</source>
            <translation>无法写入讲义</translation>
        </message>
        <message>
            <source>Wrote the handout %1</source>
            <translation>已写入讲义 %1</translation>
        </message>
        <message>
            <source>Export Step Matrices into Folder</source>
            <translation>将各步骤矩阵导出到文件夹</translation>
        </message>
        <message>
            <source>Could not export the step matrices</source>
            <translation>无法导出各步骤矩阵</translation>
        </message>
        <message>
            <source>Wrote %1 files into %2</source>
            <translation>已将 %1 个文件写入 %2</translation>
        </message>
        <message>
            <source>Export PyTorch Code</source>
            <translation>导出 PyTorch 代码</translation>
        </message>
        <message>
            <source>Python file (*.py)</source>
            <translation>Python 文件 (*.py)</translation>
        </message>
        <message>
            <source>Could not write the code</source>
            <translation>无法写入代码</translation>
        </message>
        <message>
            <source>Wrote %1</source>
            <translation>已写入 %1</translation>
        </message>
        <message>
            <source>Copied PyTorch code for this session</source>
            <translation>已复制本会话的 PyTorch 代码</translation>
        </message>
        <message>
            <source>Nothing to replace</source>
            <translation>没有可替换的内容</translation>
        </message>
        <message>
            <source>This session has no %1.</source>
            <translation>本会话没有 %1。</translation>
        </message>
        <message>
            <source>Import Matrix into %1</source>
            <translation>将矩阵导入 %1</translation>
        </message>
        <message>
            <source>Matrices (*.npy *.csv *.tsv *.txt);;All files (*)</source>
            <translation>矩阵 (*.npy *.csv *.tsv *.txt);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Could not import the matrix</source>
            <translation>无法导入矩阵</translation>
        </message>
        <message>
            <source>%1 is %2 × %3, but %4 needs %5 × %6. Change the dimensions first, or paste a block.</source>
            <translation>%1 是 %2 × %3，但 %4 需要 %5 × %6。请先更改维度，或粘贴一个块。</translation>
        </message>
        <message>
            <source>Import %1</source>
            <translation type="vanished">导入 %1</translation>
        </message>
        <message>
            <source>Export %1</source>
            <translation>导出 %1</translation>
        </message>
        <message>
            <source>NumPy array (*.npy);;CSV (*.csv)</source>
            <translation>NumPy 数组 (*.npy);;CSV (*.csv)</translation>
        </message>
        <message>
            <source>Could not export the matrix</source>
            <translation>无法导出矩阵</translation>
        </message>
        <message>
            <source>Export Slides</source>
            <translation>导出幻灯片</translation>
        </message>
        <message>
            <source>Could not write the slides</source>
            <translation>无法写入幻灯片</translation>
        </message>
        <message>
            <source>Wrote the slides %1</source>
            <translation>已写入幻灯片 %1</translation>
        </message>
        <message>
            <source>Imported %1 into %2</source>
            <translation>已将 %1 导入 %2</translation>
        </message>
        <message>
            <source>There is no overview to export: %1</source>
            <translation>没有可导出的总览：%1</translation>
        </message>
        <message>
            <source>There is no head view to export: %1</source>
            <translation>没有可导出的头视图：%1</translation>
        </message>
        <message>
            <source>The head view draws up to %1 tokens; this session has %2.</source>
            <translation>头视图最多绘制 %1 个词元；此会话有 %2 个。</translation>
        </message>
        <message>
            <source>Export Overview</source>
            <translation>导出总览</translation>
        </message>
        <message>
            <source>Could not export the overview</source>
            <translation>无法导出总览</translation>
        </message>
        <message>
            <source>Export Head View</source>
            <translation>导出头视图</translation>
        </message>
        <message>
            <source>Could not export the head view</source>
            <translation>无法导出头视图</translation>
        </message>
    </context>
    <context>
        <name>ui::HeatmapAccessible</name>
        <message>
            <source>query %1, key %2: %3</source>
            <translation>查询 %1，键 %2：%3</translation>
        </message>
        <message>
            <source>masked</source>
            <translation>已掩码</translation>
        </message>
    </context>
    <context>
        <name>ui::HeatmapCanvas</name>
        <message>
            <source>Attention heatmap</source>
            <translation>注意力热力图</translation>
        </message>
        <message>
            <source>Not enough memory to draw the heatmap of %1 tokens; it shows the state before.</source>
            <translation>内存不足，无法绘制 %1 个词元的热力图；图中仍是修改之前的状态。</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>Working</source>
            <translation>计算中</translation>
        </message>
        <message>
            <source>Nothing to show yet</source>
            <translation>暂无可显示的内容</translation>
        </message>
        <message>
            <source>Masked: key %1 comes after query %2, so it gets no attention.</source>
            <translation>已掩码：键 %1 位于查询 %2 之后，因此不获得注意力。</translation>
        </message>
    </context>
    <context>
        <name>ui::HeatmapWidget</name>
    <message>
        <source>%1 of %2 (zeroed)</source>
        <translation>第 %1 个（共 %2 个，已置零）</translation>
    </message>
        <message>
            <source>Viridis</source>
            <translation>Viridis</translation>
        </message>
        <message>
            <source>Magma</source>
            <translation>Magma</translation>
        </message>
        <message>
            <source>Cividis</source>
            <translation>Cividis</translation>
        </message>
        <message>
            <source>Grays</source>
            <translation>灰度</translation>
        </message>
        <message>
            <source>Blue–white–red</source>
            <translation>蓝–白–红</translation>
        </message>
        <message>
            <source>&amp;Step</source>
            <translation>步骤(&amp;S)</translation>
        </message>
        <message>
            <source>&amp;Head</source>
            <translation>头(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Colours</source>
            <translation>配色(&amp;C)</translation>
        </message>
        <message>
            <source>Automatic</source>
            <translation>自动</translation>
        </message>
        <message>
            <source>Show %1 in the heatmap</source>
            <translation>在热力图中显示%1</translation>
        </message>
        <message>
            <source>&amp;Automatic (by step)</source>
            <translation>自动（按步骤）(&amp;A)</translation>
        </message>
        <message>
            <source>Zoom &amp;In</source>
            <translation>放大(&amp;I)</translation>
        </message>
        <message>
            <source>+</source>
            <translation>+</translation>
        </message>
        <message>
            <source>Zoom &amp;Out</source>
            <translation>缩小(&amp;O)</translation>
        </message>
        <message>
            <source>−</source>
            <translation>−</translation>
        </message>
        <message>
            <source>&amp;Fit to Window</source>
            <translation>适应窗口(&amp;F)</translation>
        </message>
        <message>
            <source>Fit</source>
            <translation>适应</translation>
        </message>
        <message>
            <source>Show Cell &amp;Values</source>
            <translation>显示单元格数值(&amp;V)</translation>
        </message>
        <message>
            <source>Values</source>
            <translation>数值</translation>
        </message>
        <message>
            <source>Print each cell's value when the cells are large enough</source>
            <translation>单元格足够大时显示每个单元格的数值</translation>
        </message>
        <message>
            <source>%1 of %2</source>
            <translation>第 %1 个（共 %2 个）</translation>
        </message>
        <message>
            <source>Now: %1</source>
            <translation>当前：%1</translation>
        </message>
        <message>
            <source>Heatmap</source>
            <translation>热图</translation>
        </message>
        <message>
            <source>Fixed</source>
            <translation>固定</translation>
        </message>
        <message>
            <source>Matrix min–max</source>
            <translation>矩阵最小–最大</translation>
        </message>
        <message>
            <source>Each row</source>
            <translation>每行</translation>
        </message>
        <message>
            <source>Logarithmic</source>
            <translation>对数</translation>
        </message>
        <message>
            <source>&amp;Range</source>
            <translation>范围(&amp;R)</translation>
        </message>
        <message>
            <source>Which values the ends of the colour map stand for: 0 and 1, the matrix's smallest and largest, each row's own, or a logarithmic scale</source>
            <translation>颜色映射两端代表的值：0 和 1、矩阵的最小值和最大值、每行各自的范围，或对数刻度</translation>
        </message>
        <message>
            <source>&amp;Layer</source>
            <translation>层(&amp;L)</translation>
        </message>
        <message>
            <source>The layer of the model the heatmap, the steps, the walkthrough and the slides show</source>
            <translation>热力图、步骤、逐步讲解和幻灯片所显示的模型层</translation>
        </message>
    </context>
    <context>
        <name>ui::MainMenus</name>
        <message>
            <source>&amp;New</source>
            <translation>新建(&amp;N)</translation>
        </message>
        <message>
            <source>Start again from the worked example</source>
            <translation>从示例重新开始</translation>
        </message>
        <message>
            <source>&amp;Open…</source>
            <translation>打开(&amp;O)…</translation>
        </message>
        <message>
            <source>Open a session file</source>
            <translation>打开会话文件</translation>
        </message>
        <message>
            <source>&amp;Save</source>
            <translation>保存(&amp;S)</translation>
        </message>
        <message>
            <source>Save &amp;As…</source>
            <translation>另存为(&amp;A)…</translation>
        </message>
        <message>
            <source>&amp;Export Heatmap…</source>
            <translation>导出热力图(&amp;E)…</translation>
        </message>
        <message>
            <source>Write the heatmap as shown to a PNG, SVG or PDF file</source>
            <translation>把当前显示的热力图写入 PNG、SVG 或 PDF 文件</translation>
        </message>
        <message>
            <source>&amp;Copy Heatmap Image</source>
            <translation>复制热力图图像(&amp;C)</translation>
        </message>
        <message>
            <source>Copy the heatmap to the clipboard as an image</source>
            <translation>把热力图作为图像复制到剪贴板</translation>
        </message>
        <message>
            <source>Export &amp;Report (PDF)…</source>
            <translation>导出报告 (PDF)(&amp;R)…</translation>
        </message>
        <message>
            <source>Every step with its formula, its matrices as numbers and heatmaps, and an explanation</source>
            <translation>每个步骤的公式、以数字和热力图呈现的矩阵以及解释</translation>
        </message>
        <message>
            <source>Export &amp;Handout…</source>
            <translation>导出讲义(&amp;H)…</translation>
        </message>
        <message>
            <source>One page to hand out: the tokens, the heatmap of the weights and the seven formulas</source>
            <translation>一页讲义：词元、权重热力图和七个公式</translation>
        </message>
        <message>
            <source>Export Step &amp;Matrices…</source>
            <translation>导出各步骤矩阵(&amp;M)…</translation>
        </message>
        <message>
            <source>One CSV file per step and head, and the whole computation as JSON, into a folder</source>
            <translation>每个步骤和每个头一个 CSV 文件，外加整个计算的 JSON，写入一个文件夹</translation>
        </message>
        <message>
            <source>Export &amp;PyTorch Code…</source>
            <translation>导出 PyTorch 代码(&amp;P)…</translation>
        </message>
        <message>
            <source>Copy as PyTorch &amp;Code</source>
            <translation>复制为 PyTorch 代码(&amp;C)</translation>
        </message>
        <message>
            <source>Python that reproduces every step of this session with torch</source>
            <translation>用 torch 重现本会话每个步骤的 Python 代码</translation>
        </message>
        <message>
            <source>&amp;Import Matrix…</source>
            <translation>导入矩阵(&amp;I)…</translation>
        </message>
        <message>
            <source>Replace the matrix of the current editor tab with one from a .npy or .csv file</source>
            <translation>用 .npy 或 .csv 文件中的矩阵替换当前编辑器标签页的矩阵</translation>
        </message>
        <message>
            <source>Export Mat&amp;rix…</source>
            <translation>导出矩阵(&amp;R)…</translation>
        </message>
        <message>
            <source>Write the matrix of the current editor tab as .npy or .csv</source>
            <translation>把当前编辑器标签页的矩阵写成 .npy 或 .csv</translation>
        </message>
        <message>
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Full Screen</source>
            <translation>全屏(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Teaching Mode</source>
            <translation>教学模式(&amp;T)</translation>
        </message>
        <message>
            <source>Step through the seven steps full screen, one per slide</source>
            <translation>全屏逐步讲解七个步骤，每页幻灯片一个步骤</translation>
        </message>
        <message>
            <source>&amp;Why Divide by √d_k?</source>
            <translation>为什么除以 √d_k？(&amp;W)</translation>
        </message>
        <message>
            <source>&amp;Reset Layout</source>
            <translation>重置布局(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;About Attention Explorer</source>
            <translation>关于注意力探索器(&amp;A)</translation>
        </message>
        <message>
            <source>About Attention Explorer</source>
            <translation>关于注意力探索器</translation>
        </message>
        <message>
            <source>&lt;h3&gt;Attention Explorer %1&lt;/h3&gt;&lt;p&gt;See and touch every number of self-attention: type tokens, edit X and the weight matrices, and watch the scores, the softmax and the outputs follow.&lt;/p&gt;&lt;p&gt;Hover any number to see the arithmetic behind it.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;注意力探索器 %1&lt;/h3&gt;&lt;p&gt;看见并触摸自注意力的每一个数字：输入词元，编辑 X 和权重矩阵，观察分数、softmax 和输出随之变化。&lt;/p&gt;&lt;p&gt;把鼠标悬停在任意数字上，即可看到它背后的算式。&lt;/p&gt;</translation>
        </message>
        <message>
            <source>About &amp;Qt</source>
            <translation>关于 Qt(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>Open &amp;Recent</source>
            <translation>最近打开(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Edit</source>
            <translation>编辑(&amp;E)</translation>
        </message>
        <message>
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <source>Heatmap &amp;Step</source>
            <translation>热力图步骤(&amp;S)</translation>
        </message>
        <message>
            <source>&amp;Colour Map</source>
            <translation>配色方案(&amp;C)</translation>
        </message>
        <message>
            <source>&amp;Panels</source>
            <translation>面板(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;Presets</source>
            <translation>预设(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;Language</source>
            <translation type="vanished">语言(&amp;L)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Undo</source>
            <translation>撤销(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Undo %1</source>
            <translation type="vanished">撤销 %1(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Redo</source>
            <translation>重做(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Redo %1</source>
            <translation type="vanished">重做 %1(&amp;R)</translation>
        </message>
        <message>
            <source>Export S&amp;lides (PDF)…</source>
            <translation>导出幻灯片 (PDF)(&amp;L)…</translation>
        </message>
        <message>
            <source>The teaching slides of the current head and query, one per page</source>
            <translation>当前头和查询的教学幻灯片，每页一张</translation>
        </message>
        <message>
            <source>&amp;Undo: %1</source>
            <translation>撤销：%1(&amp;U)</translation>
        </message>
        <message>
            <source>&amp;Redo: %1</source>
            <translation>重做：%1(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Quick Start</source>
            <translation>快速入门(&amp;Q)</translation>
        </message>
        <message>
            <source>Three things to try first</source>
            <translation>先试试这三件事</translation>
        </message>
        <message>
            <source>&amp;What You Can Do</source>
            <translation>你能做什么(&amp;W)</translation>
        </message>
        <message>
            <source>Everything this program does, in short</source>
            <translation>本程序能做的一切，简要说明</translation>
        </message>
        <message>
            <source>&amp;Keyboard Shortcuts</source>
            <translation>键盘快捷键(&amp;K)</translation>
        </message>
        <message>
            <source>Every key of the menus</source>
            <translation>菜单中的每个快捷键</translation>
        </message>
        <message>
            <source>Export &amp;Overview…</source>
            <translation>导出总览(&amp;O)…</translation>
        </message>
        <message>
            <source>Write every layer × head, as the Overview panel shows them, to a PNG, SVG or PDF file</source>
            <translation>将每一层 × 每个头（如总览面板所示）写入 PNG、SVG 或 PDF 文件</translation>
        </message>
        <message>
            <source>Export Head &amp;View…</source>
            <translation>导出头视图(&amp;V)…</translation>
        </message>
        <message>
            <source>Write the head view's lines, as the Head View panel shows them, to a PNG, SVG or PDF file</source>
            <translation>将头视图的连线（如头视图面板所示）写入 PNG、SVG 或 PDF 文件</translation>
        </message>
        <message>
            <source>Open &amp;Model…</source>
            <translation>打开模型(&amp;M)…</translation>
        </message>
        <message>
            <source>Open a GPT-2 checkpoint folder (config.json, model.safetensors, the tokenizer)</source>
            <translation type="vanished">打开 GPT-2 检查点文件夹（config.json、model.safetensors 和分词器）</translation>
        </message>
        <message>
            <source>Open &amp;Built-in Model</source>
            <translation>打开内置模型(&amp;B)</translation>
        </message>
        <message>
            <source>Open the small model trained for teaching that comes with the program</source>
            <translation>打开随程序附带、为教学而训练的小模型</translation>
        </message>
        <message>
            <source>Recent Mo&amp;dels</source>
            <translation>最近的模型(&amp;D)</translation>
        </message>
        <message>
            <source>Open a model of the Hugging Face cache, or a checkpoint folder (config.json, the safetensors weights, the tokenizer)</source>
            <translation>打开 Hugging Face 缓存中的模型，或一个检查点文件夹（config.json、safetensors 权重、分词器）</translation>
        </message>
        <message>
            <source>Do&amp;wnload Model…</source>
            <translation>下载模型(&amp;W)…</translation>
        </message>
        <message>
            <source>Fetch a model from the Hugging Face Hub into the cache, then open it</source>
            <translation>从 Hugging Face Hub 下载模型到缓存，然后打开它</translation>
        </message>
    </context>
    <context>
        <name>ui::i18n</name>
        <message>
            <source>Attention Explorer</source>
            <translation>注意力探索器</translation>
        </message>
    </context>
    <context>
        <name>ui::MainWindow</name>
        <message>
            <source>Undone: %1</source>
            <translation>已撤销：%1</translation>
        </message>
        <message>
            <source>Tokens</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>Options</source>
            <translation>选项</translation>
        </message>
        <message>
            <source>Steps</source>
            <translation>步骤</translation>
        </message>
        <message>
            <source>Walkthrough</source>
            <translation>逐步演算</translation>
        </message>
        <message>
            <source>Matrices</source>
            <translation>矩阵</translation>
        </message>
        <message>
            <source>History</source>
            <translation>历史</translation>
        </message>
        <message>
            <source>Why √d_k?</source>
            <translation>为什么除以 √d_k？</translation>
        </message>
        <message>
            <source>&lt;opened&gt;</source>
            <translation>&lt;已打开&gt;</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>n %1 · d_model %2 · d_k %3 · d_v %4 · heads %5</source>
            <translation>n %1 · d_model %2 · d_k %3 · d_v %4 · 头数 %5</translation>
        </message>
        <message>
            <source>Overview</source>
            <translation>总览</translation>
        </message>
        <message>
            <source>Head View</source>
            <translation>头视图</translation>
        </message>
        <message>
            <source>Next Token</source>
            <translation>下一个词元</translation>
        </message>
        <message>
            <source>%1 · layer %2 of %3 · %4</source>
            <translation>%1 · 第 %2 层（共 %3 层）· %4</translation>
        </message>
        <message>
            <source>Logit Lens</source>
            <translation>Logit 透镜</translation>
        </message>
        <message>
            <source>Attribution</source>
            <translation>归因</translation>
        </message>
        <message>
            <source>Block View</source>
            <translation>块视图</translation>
        </message>
    </context>
    <context>
        <name>ui::MatrixEditorPanel</name>
        <message>
            <source>X</source>
            <translation type="vanished">X</translation>
        </message>
        <message>
            <source>W_Q</source>
            <translation type="vanished">W_Q</translation>
        </message>
        <message>
            <source>W_K</source>
            <translation type="vanished">W_K</translation>
        </message>
        <message>
            <source>W_V</source>
            <translation type="vanished">W_V</translation>
        </message>
        <message>
            <source>W_O</source>
            <translation type="vanished">W_O</translation>
        </message>
        <message>
            <source>Token embeddings X: one row per token (n × d_model)</source>
            <translation>词元嵌入 X：每个词元一行（n × d_model）</translation>
        </message>
        <message>
            <source>Query weights W_Q (d_model × h·d_k)</source>
            <translation>查询权重 W_Q（d_model × h·d_k）</translation>
        </message>
        <message>
            <source>Key weights W_K (d_model × h·d_k)</source>
            <translation>键权重 W_K（d_model × h·d_k）</translation>
        </message>
        <message>
            <source>Value weights W_V (d_model × h·d_v)</source>
            <translation>值权重 W_V（d_model × h·d_v）</translation>
        </message>
        <message>
            <source>Output projection W_O (h·d_v × d_out)</source>
            <translation>输出投影 W_O（h·d_v × d_out）</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Paste</source>
            <translation>粘贴</translation>
        </message>
        <message>
            <source>This model has no output projection W_O: the output is the heads' outputs side by side.</source>
            <translation>此模型没有输出投影 W_O：输出就是各个头的输出并排拼接。</translation>
        </message>
        <message>
            <source>Add W_O</source>
            <translation>添加 W_O</translation>
        </message>
        <message>
            <source>Add an output projection, starting as the identity</source>
            <translation>添加输出投影，初始为单位矩阵</translation>
        </message>
        <message>
            <source>Random</source>
            <translation>随机</translation>
        </message>
        <message>
            <source>Zeros</source>
            <translation>全零</translation>
        </message>
        <message>
            <source>Identity</source>
            <translation>单位矩阵</translation>
        </message>
        <message>
            <source>Scale ×</source>
            <translation>缩放 ×</translation>
        </message>
        <message>
            <source>Copy the selected cells, tab-separated (Ctrl+C)</source>
            <translation>复制选中的单元格，以制表符分隔（Ctrl+C）</translation>
        </message>
        <message>
            <source>Paste a block at the current cell (Ctrl+V)</source>
            <translation>在当前单元格处粘贴一个块（Ctrl+V）</translation>
        </message>
        <message>
            <source>Fill with random numbers from the seed (Glorot uniform)</source>
            <translation>用由种子生成的随机数填充（Glorot 均匀分布）</translation>
        </message>
        <message>
            <source>Fill with zeros</source>
            <translation>用零填充</translation>
        </message>
        <message>
            <source>Ones on the diagonal, zeros elsewhere</source>
            <translation>对角线为 1，其余为 0</translation>
        </message>
        <message>
            <source>Multiply every cell by the factor</source>
            <translation>每个单元格乘以该系数</translation>
        </message>
        <message>
            <source>seed </source>
            <translation>种子 </translation>
        </message>
        <message>
            <source>The seed of the random fill: the same seed gives the same numbers</source>
            <translation>随机填充的种子：相同的种子得到相同的数字</translation>
        </message>
        <message>
            <source>The factor of Scale ×</source>
            <translation>“缩放 ×”的系数</translation>
        </message>
        <message>
            <source>decimals </source>
            <translation>小数位 </translation>
        </message>
        <message>
            <source>Decimals shown; editing a cell shows its exact value</source>
            <translation>显示的小数位数；编辑单元格时显示其精确值</translation>
        </message>
        <message>
            <source>W_O (none)</source>
            <translation>W_O（无）</translation>
        </message>
        <message>
            <source>Select the cells to copy first.</source>
            <translation>请先选择要复制的单元格。</translation>
        </message>
        <message>
            <source>Copied %1 × %2 cells.</source>
            <translation>已复制 %1 × %2 个单元格。</translation>
        </message>
        <message>
            <source>There is no %1 to paste into.</source>
            <translation>没有可粘贴进去的 %1。</translation>
        </message>
        <message>
            <source>Nothing pasted: %1</source>
            <translation>未粘贴：%1</translation>
        </message>
        <message>
            <source>row %1, column %2: “%3” is not a finite number</source>
            <translation>第 %1 行第 %2 列：“%3”不是有限的数</translation>
        </message>
        <message>
            <source>row %1 has %2 cells, the first row %3</source>
            <translation>第 %1 行有 %2 个单元格，而第一行有 %3 个</translation>
        </message>
        <message>
            <source>there are no numbers to paste</source>
            <translation>没有可粘贴的数</translation>
        </message>
        <message>
            <source>Paste into %1</source>
            <translation type="vanished">粘贴到 %1</translation>
        </message>
        <message>
            <source>Pasted %1 × %2 of the %3 × %4 block at row %5, column %6 of the %7 × %8 matrix: the cells past the edge were left out.</source>
            <translation>已在 %7 × %8 矩阵的第 %5 行第 %6 列粘贴了 %3 × %4 块中的 %1 × %2：超出边缘的单元格已被忽略。</translation>
        </message>
        <message>
            <source>Pasted %1 × %2 cells.</source>
            <translation>已粘贴 %1 × %2 个单元格。</translation>
        </message>
        <message>
            <source>There is no %1 to fill.</source>
            <translation>没有可填充的 %1。</translation>
        </message>
        <message>
            <source>%1 was refused: the result is not all finite numbers.</source>
            <translation type="vanished">%1 被拒绝：结果并非全为有限数。</translation>
        </message>
        <message>
            <source>Fill %1 at random (seed %2)</source>
            <translation type="vanished">随机填充 %1（种子 %2）</translation>
        </message>
        <message>
            <source>Fill %1 with zeros</source>
            <translation type="vanished">用零填充 %1</translation>
        </message>
        <message>
            <source>Fill %1 with the identity</source>
            <translation type="vanished">用单位矩阵填充 %1</translation>
        </message>
        <message>
            <source>Scale %1 by %2</source>
            <translation type="vanished">将 %1 乘以 %2</translation>
        </message>
        <message>
            <source>Seed of the random fill</source>
            <translation>随机填充的种子</translation>
        </message>
        <message>
            <source>Factor of Scale ×</source>
            <translation>“缩放 ×”的因子</translation>
        </message>
        <message>
            <source>Decimals shown</source>
            <translation>显示的小数位数</translation>
        </message>
        <message>
            <source>Matrices</source>
            <translation>矩阵</translation>
        </message>
        <message>
            <source>%1 not changed: the result would not be all finite numbers.</source>
            <translation>%1 未更改：结果将不全是有限数。</translation>
        </message>
        <message>
            <source>Filled %1 at random (seed %2)</source>
            <translation>已随机填充 %1（种子 %2）</translation>
        </message>
        <message>
            <source>Filled %1 with the identity</source>
            <translation>已用单位矩阵填充 %1</translation>
        </message>
        <message>
            <source>Filled %1 with zeros</source>
            <translation>已用零填充 %1</translation>
        </message>
        <message>
            <source>Pasted %1 × %2 cells into %3</source>
            <translation>已将 %1 × %2 个单元格粘贴到 %3</translation>
        </message>
        <message>
            <source>Scaled %1 by %2</source>
            <translation>已将 %1 乘以 %2</translation>
        </message>
        <message>
            <source>Scaled %1 and %2 by %3</source>
            <translation>已将 %1 和 %2 乘以 %3</translation>
        </message>
        <message>
            <source>There is no head %1 to zero.</source>
            <translation>没有可置零的头 %1。</translation>
        </message>
        <message>
            <source>Zero Head</source>
            <translation>头置零</translation>
        </message>
        <message>
            <source>Set the shown head's rows of W_O to 0, so that its output no longer reaches the model (an ablation); undo gives them back</source>
            <translation>把所显示的头在 W_O 中的行设为 0，使它的输出不再进入模型（消融）；撤销可恢复</translation>
        </message>
        <message>
            <source>Reset Layer</source>
            <translation>重置本层</translation>
        </message>
        <message>
            <source>Give every edited weight of the shown layer its checkpoint value</source>
            <translation>将所显示层中每个改过的权重恢复为检查点中的值</translation>
        </message>
        <message>
            <source>Reset All</source>
            <translation>全部重置</translation>
        </message>
        <message>
            <source>Give every edited weight of every layer its checkpoint value</source>
            <translation>将所有层中每个改过的权重恢复为检查点中的值</translation>
        </message>
    </context>
    <context>
        <name>ui::MatrixTableModel</name>
        <message>
            <source>%1(%2,%3) = %4 (token “%5”)</source>
            <translation>%1(%2,%3) = %4（词元“%5”）</translation>
        </message>
        <message>
            <source>%1(%2,%3) = %4</source>
            <translation>%1(%2,%3) = %4</translation>
        </message>
        <message>
            <source>Token %1: “%2”</source>
            <translation>词元 %1：“%2”</translation>
        </message>
        <message>
            <source>%1 %2</source>
            <translation>%1 %2</translation>
        </message>
        <message>
            <source>“%1” is not a finite number; %2(%3,%4) keeps %5.</source>
            <translation>“%1”不是有限数；%2(%3,%4) 保持为 %5。</translation>
        </message>
        <message>
            <source> (edited; the checkpoint's value is kept)</source>
            <translation>（已修改；检查点中的原值保留不变）</translation>
        </message>
        <message>
            <source>%1(%2) = %3</source>
            <translation>%1(%2) = %3</translation>
        </message>
        <message>
            <source>%1: the bias, added to every row of the product</source>
            <translation>%1：偏置，加到乘积的每一行上</translation>
        </message>
    </context>
    <context>
        <name>ui::OptionsPanel</name>
        <message>
            <source>Scores and dimensions</source>
            <translation>分数与维度</translation>
        </message>
        <message>
            <source>Divide scores by √d_k</source>
            <translation>分数除以 √d_k</translation>
        </message>
        <message>
            <source>scaled_scores = scores · s / T with s = 1/√d_k when on, else 1</source>
            <translation>缩放后分数 = 分数 · s / T，开启时 s = 1/√d_k，否则 s = 1</translation>
        </message>
        <message>
            <source>Low temperatures sharpen the softmax, high ones flatten it</source>
            <translation>低温度使 softmax 更尖锐，高温度使其更平缓</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
        </message>
        <message>
            <source>Causal (no looking ahead)</source>
            <translation>因果（不看后面的词元）</translation>
        </message>
        <message>
            <source>Sinusoidal</source>
            <translation>正弦</translation>
        </message>
        <message>
            <source>Output projection W_O</source>
            <translation>输出投影 W_O</translation>
        </message>
        <message>
            <source>output = concat · W_O; off: output = concat</source>
            <translation>输出 = 拼接 · W_O；关闭时：输出 = 拼接</translation>
        </message>
        <message>
            <source>T&amp;emperature</source>
            <translation>温度(&amp;E)</translation>
        </message>
        <message>
            <source>&amp;Mask</source>
            <translation>掩码(&amp;M)</translation>
        </message>
        <message>
            <source>&amp;Positions</source>
            <translation>位置编码(&amp;P)</translation>
        </message>
        <message>
            <source>&amp;Heads</source>
            <translation>头数(&amp;H)</translation>
        </message>
        <message>
            <source>d_m&amp;odel</source>
            <translation>d_model(&amp;O)</translation>
        </message>
        <message>
            <source>d_&amp;k per head</source>
            <translation>每头 d_k(&amp;K)</translation>
        </message>
        <message>
            <source>d_&amp;v per head</source>
            <translation>每头 d_v(&amp;V)</translation>
        </message>
        <message>
            <source>Scores</source>
            <translation>分数</translation>
        </message>
        <message>
            <source>Dimensions</source>
            <translation>维度</translation>
        </message>
        <message>
            <source>Change temperature</source>
            <translation type="vanished">更改温度</translation>
        </message>
        <message>
            <source>Not changed: %1</source>
            <translation>未更改：%1</translation>
        </message>
        <message>
            <source>Temperature slider</source>
            <translation>温度滑块</translation>
        </message>
        <message>
            <source>Changed the temperature</source>
            <translation>已更改温度</translation>
        </message>
        <message>
            <source>Changing the heads sets d_k = d_v = d_model / h when h divides d_model</source>
            <translation>h 能整除 d_model 时，更改头数会设 d_k = d_v = d_model / h</translation>
        </message>
        <message>
            <source>The columns of W_O, and so of the output (usually d_model)</source>
            <translation>W_O 的列数，也就是输出的列数（通常为 d_model）</translation>
        </message>
        <message>
            <source>d_k = d_v = d_model / h = %1 / %2 = %3, as usual; change them freely.</source>
            <translation>按惯例 d_k = d_v = d_model / h = %1 / %2 = %3；可以随意再改。</translation>
        </message>
        <message>
            <source>d_o&amp;ut</source>
            <translation>d_out(&amp;U)</translation>
        </message>
        <message>
            <source>W_O</source>
            <translation>W_O</translation>
        </message>
        <message>
            <source>no W_O</source>
            <translation>无 W_O</translation>
        </message>
        <message>
            <source>the biases %1</source>
            <translation>偏置 %1</translation>
        </message>
        <message>
            <source>the causal mask, the division by √d_k and temperature 1</source>
            <translation>因果掩码、除以 √d_k 和温度 1</translation>
        </message>
        <message>
            <source>Its positions are rotary (θ = %1), turning %2 of the %3 dimensions of each q and k.</source>
            <translation>其位置编码为旋转式（θ = %1），旋转每个 q 和 k 的 %3 个维度中的 %2 个。</translation>
        </message>
        <message>
            <source>Its positions are learnt embeddings, in the residual stream already.</source>
            <translation>其位置为学到的嵌入，已在残差流中。</translation>
        </message>
        <message>
            <source>Layer %1 of %2 of %3: d_model %4, %5 heads of d_k = d_v = %6. The checkpoint fixes these, %7. %8</source>
            <translation>%3 的第 %1 层（共 %2 层）：d_model %4，%5 个头，每头 d_k = d_v = %6。这些由检查点决定，还有：%7。%8</translation>
        </message>
        <message>
            <source>, </source>
            <translation>、</translation>
        </message>
        <message>
            <source>Rotary (RoPE)</source>
            <translation>旋转（RoPE）</translation>
        </message>
        <message>
            <source>Sinusoidal adds sin/cos of the position to X (Vaswani et al., 2017); rotary turns each head's q and k by their position (Su et al., 2021)</source>
            <translation>正弦编码把位置的 sin/cos 加到 X 上（Vaswani 等，2017）；旋转编码按位置旋转每个头的 q 和 k（Su 等，2021）</translation>
        </message>
        <message>
            <source>Rotary &amp;base θ</source>
            <translation>旋转基数 θ(&amp;B)</translation>
        </message>
        <message>
            <source>The base of the rotary angles: pair i of a row at position p turns by p·θ^(−2i/d_r)</source>
            <translation>旋转角度的基数：位置 p 处一行的第 i 对维度转过 p·θ^(−2i/d_r)</translation>
        </message>
        <message>
            <source>&amp;Rotated share</source>
            <translation>旋转比例(&amp;R)</translation>
        </message>
        <message>
            <source>The share of each head's d_k dimensions that turns (GPT-NeoX turns a quarter)</source>
            <translation>每个头的 d_k 个维度中参与旋转的比例（GPT-NeoX 旋转四分之一）</translation>
        </message>
        <message>
            <source>q/k norm (RMS-normalise each head's q and k)</source>
            <translation>q/k 归一化（对每个头的 q 和 k 做 RMS 归一化）</translation>
        </message>
        <message>
            <source>Divides each q and k row by its root mean square before the rotation, as Qwen3 does</source>
            <translation>在旋转之前把每个 q 和 k 行除以其均方根，与 Qwen3 相同</translation>
        </message>
        <message>
            <source>K/V hea&amp;ds</source>
            <translation>K/V 头数(&amp;D)</translation>
        </message>
        <message>
            <source>Query heads share K and V in groups (grouped-query attention): W_K and W_V have the columns of this many heads. It must divide the heads.</source>
            <translation>查询头按组共享 K 和 V（分组查询注意力）：W_K 和 W_V 只有这么多个头的列。它必须整除头数。</translation>
        </message>
    </context>
    <context>
        <name>ui::ScalingPanel</name>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>For random queries and keys with unit-variance entries, dot products spread like √d_k. Unscaled, the softmax turns almost one-hot as d_k grows and its gradient fades, so learning stalls; divided by √d_k, the spread stays near 1 and the softmax stays soft.</source>
            <translation>对于元素方差为 1 的随机查询和键，点积的离散程度按 √d_k 增长。不缩放时，随着 d_k 增大，softmax 几乎变成独热分布，梯度逐渐消失，学习停滞；除以 √d_k 后，离散程度保持在 1 左右，softmax 保持平缓。</translation>
        </message>
        <message>
            <source>&amp;Keys per softmax (n):</source>
            <translation>每次 softmax 的键数 (n)(&amp;K)：</translation>
        </message>
        <message>
            <source>q·k</source>
            <translation>q·k</translation>
        </message>
        <message>
            <source>q·k / √d_k</source>
            <translation>q·k / √d_k</translation>
        </message>
        <message>
            <source>Spread of the scores (standard deviation)</source>
            <translation>分数的离散程度（标准差）</translation>
        </message>
        <message>
            <source>Largest softmax weight</source>
            <translation>最大的 softmax 权重</translation>
        </message>
        <message>
            <source>Entropy of the softmax (nats)</source>
            <translation>softmax 的熵（奈特）</translation>
        </message>
        <message>
            <source>Size of the softmax gradient</source>
            <translation>softmax 梯度的大小</translation>
        </message>
        <message>
            <source>Charts of the scaling</source>
            <translation>缩放的图表</translation>
        </message>
    </context>
    <context>
        <name>ui::SessionController</name>
        <message>
            <source>Attention Explorer sessions (*.json);;All files (*)</source>
            <translation>注意力探索器会话 (*.json);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Autosave failed</source>
            <translation>自动保存失败</translation>
        </message>
        <message>
            <source>Opened %1</source>
            <translation>已打开 %1</translation>
        </message>
        <message>
            <source>Saved %1</source>
            <translation>已保存 %1</translation>
        </message>
        <message>
            <source>Loaded the preset “%1”</source>
            <translation>已载入预设“%1”</translation>
        </message>
        <message>
            <source>&amp;%1 %2</source>
            <translation>&amp;%1 %2</translation>
        </message>
        <message>
            <source>No recent files</source>
            <translation>没有最近文件</translation>
        </message>
        <message>
            <source>&amp;Clear List</source>
            <translation>清除列表(&amp;C)</translation>
        </message>
        <message>
            <source>Unsaved changes</source>
            <translation>未保存的更改</translation>
        </message>
        <message>
            <source>The session has changes that are not saved.</source>
            <translation>会话中有尚未保存的更改。</translation>
        </message>
        <message>
            <source>Do you want to save them first?</source>
            <translation>要先保存吗？</translation>
        </message>
        <message>
            <source>Open Session</source>
            <translation>打开会话</translation>
        </message>
        <message>
            <source>Could not open the session</source>
            <translation>无法打开会话</translation>
        </message>
        <message>
            <source>Could not save the session</source>
            <translation>无法保存会话</translation>
        </message>
        <message>
            <source>Save Session As</source>
            <translation>会话另存为</translation>
        </message>
        <message>
            <source>attention</source>
            <translation>注意力</translation>
        </message>
        <message>
            <source>Untitled</source>
            <translation>未命名</translation>
        </message>
        <message>
            <source>%1 (recovered)</source>
            <translation>%1（已恢复）</translation>
        </message>
        <message>
            <source>Recover Unsaved Changes</source>
            <translation>恢复未保存的更改</translation>
        </message>
        <message>
            <source>Attention Explorer did not close properly. It kept a session with changes that were not saved.</source>
            <translation>注意力探索器上次没有正常关闭。它保留了一个含有未保存更改的会话。</translation>
        </message>
        <message>
            <source>Kept at %1, with %2.</source>
            <translation>保留于 %1，包含 %2。</translation>
        </message>
        <message>
            <source>the model %1 and no edits of its weights</source>
            <translation>模型 %1（未修改权重）</translation>
        </message>
        <message>
            <source>the model %1 and 1 edit of its weights</source>
            <translation>模型 %1 和对其权重的 1 处修改</translation>
        </message>
        <message>
            <source>the model %1 and %2 edits of its weights</source>
            <translation>模型 %1 和对其权重的 %2 处修改</translation>
        </message>
        <message>
            <source>Could not recover the session</source>
            <translation>无法恢复会话</translation>
        </message>
        <message>
            <source>1 token</source>
            <translation>1 个词元</translation>
        </message>
        <message>
            <source>%1 tokens</source>
            <translation>%1 个词元</translation>
        </message>
        <message>
            <source>It was never saved to a file.</source>
            <translation>它从未保存到文件。</translation>
        </message>
        <message>
            <source>It came from %1; that file does not have these changes.</source>
            <translation>它来自 %1；该文件中没有这些更改。</translation>
        </message>
        <message>
            <source>Other kept sessions: %1. They will be offered at the next start.</source>
            <translation>其他保留的会话：%1 个。下次启动时会再询问。</translation>
        </message>
        <message>
            <source>&amp;Recover</source>
            <translation>恢复(&amp;R)</translation>
        </message>
        <message>
            <source>&amp;Discard</source>
            <translation>丢弃(&amp;D)</translation>
        </message>
        <message>
            <source>Decide &amp;Later</source>
            <translation>以后再说(&amp;L)</translation>
        </message>
        <message>
            <source>Discarded the kept session</source>
            <translation>已丢弃保留的会话</translation>
        </message>
        <message>
            <source>Recovered the session kept at %1; it is not saved yet.</source>
            <translation>已恢复保留于 %1 的会话；它尚未保存。</translation>
        </message>
        <message>
            <source>Opened the model %1</source>
            <translation>已打开模型 %1</translation>
        </message>
        <message>
            <source>Opened the built-in model</source>
            <translation>已打开内置模型</translation>
        </message>
        <message>
            <source>Open Model Folder</source>
            <translation type="vanished">打开模型文件夹</translation>
        </message>
        <message>
            <source>Cannot open the model</source>
            <translation>无法打开模型</translation>
        </message>
        <message>
            <source>No recent models</source>
            <translation>没有最近的模型</translation>
        </message>
    </context>
    <context>
        <name>ui::Scheduler</name>
        <message>
            <source>Not enough memory to compute %1 tokens.</source>
            <translation>内存不足，无法计算 %1 个词元。</translation>
        </message>
    </context>
    <context>
        <name>ui::StepBlock</name>
        <message>
            <source>Too many numbers to read: the matrix as a heatmap. Zoom for a larger view.</source>
            <translation>数字太多，难以阅读：以热力图显示矩阵。放大可查看更大的视图。</translation>
        </message>
        <message>
            <source>Zoom…</source>
            <translation>放大…</translation>
        </message>
        <message>
            <source>Show this matrix as a large heatmap</source>
            <translation>以大热力图显示此矩阵</translation>
        </message>
        <message>
            <source>%1 as a heatmap</source>
            <translation>%1 的热图</translation>
        </message>
        <message>
            <source>&amp;Fit</source>
            <translation>适应窗口(&amp;F)</translation>
        </message>
        <message>
            <source>Show the whole matrix</source>
            <translation>显示整个矩阵</translation>
        </message>
        <message>
            <source>Wheel: zoom around the pointer · drag: move</source>
            <translation>滚轮：以指针为中心缩放 · 拖动：移动</translation>
        </message>
    </context>
    <context>
        <name>ui::StepTableModel</name>
        <message>
            <source>w(%1,%2)·v(%2,%3) = %4·%5 = %6</source>
            <translation>w(%1,%2)·v(%2,%3) = %4·%5 = %6</translation>
        </message>
        <message>
            <source>Token %1: “%2”</source>
            <translation>词元 %1：“%2”</translation>
        </message>
        <message>
            <source>masked</source>
            <translation>已屏蔽</translation>
        </message>
    </context>
    <context>
        <name>ui::StepsPanel</name>
        <message>
            <source>%1 × %2</source>
            <translation>%1 × %2</translation>
        </message>
        <message>
            <source>&amp;Head</source>
            <translation>头(&amp;H)</translation>
        </message>
        <message>
            <source>&amp;Query</source>
            <translation>查询(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Decimals</source>
            <translation>小数位(&amp;D)</translation>
        </message>
        <message>
            <source>The attention head whose steps are shown</source>
            <translation>显示其步骤的注意力头</translation>
        </message>
        <message>
            <source>The query token whose weighted values step 6 shows</source>
            <translation>步骤 6 显示其加权值的查询词元</translation>
        </message>
        <message>
            <source>Decimals of every number shown; hover a number for its exact arithmetic</source>
            <translation>所有数字显示的小数位数；悬停在数字上可查看其精确算式</translation>
        </message>
        <message>
            <source>&lt;i&gt;X&lt;/i&gt;</source>
            <translation>&lt;i&gt;X&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt;</source>
            <translation>&lt;i&gt;Q&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;K&lt;/i&gt;</source>
            <translation>&lt;i&gt;K&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;V&lt;/i&gt;</source>
            <translation>&lt;i&gt;V&lt;/i&gt;</translation>
        </message>
        <message>
            <source>query ↓ · key →</source>
            <translation>查询 ↓ · 键 →</translation>
        </message>
        <message>
            <source>scaled scores</source>
            <translation>缩放后的分数</translation>
        </message>
        <message>
            <source>attention weights</source>
            <translation>注意力权重</translation>
        </message>
        <message>
            <source>&lt;i&gt;Z&lt;/i&gt;</source>
            <translation>&lt;i&gt;Z&lt;/i&gt;</translation>
        </message>
        <message>
            <source>output</source>
            <translation>输出</translation>
        </message>
        <message>
            <source>%1</source>
            <translation>%1</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>Q, K: %1 · V: %2</source>
            <translation>Q、K：%1 · V：%2</translation>
        </message>
        <message>
            <source>rows × columns: %1</source>
            <translation>行 × 列：%1</translation>
        </message>
        <message>
            <source>The seven steps</source>
            <translation>七个步骤</translation>
        </message>
        <message>
            <source>%1: %2</source>
            <translation>%1：%2</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt; before the turn</source>
            <translation>旋转前的 &lt;i&gt;Q&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;K&lt;/i&gt; before the turn</source>
            <translation>旋转前的 &lt;i&gt;K&lt;/i&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;Q&lt;/i&gt;′ turned by position</source>
            <translation>按位置旋转后的 &lt;i&gt;Q&lt;/i&gt;′</translation>
        </message>
        <message>
            <source>&lt;i&gt;K&lt;/i&gt;′ turned by position</source>
            <translation>按位置旋转后的 &lt;i&gt;K&lt;/i&gt;′</translation>
        </message>
        <message>
            <source> · %1</source>
            <translation> · %1</translation>
        </message>
    </context>
    <context>
        <name>ui::TeachingView</name>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>Teaching Mode</source>
            <translation>教学模式</translation>
        </message>
    </context>
    <context>
        <name>ui::TokenBar</name>
        <message>
            <source>Type a sentence…</source>
            <translation>输入一个句子…</translation>
        </message>
        <message>
            <source>Every keystroke re-tokenizes: words, punctuation marks and each Chinese or Japanese character become tokens.</source>
            <translation>每次按键都会重新分词：单词、标点符号以及每个中文或日文字符都会成为词元。</translation>
        </message>
        <message>
            <source>Token text</source>
            <translation>词元文本</translation>
        </message>
        <message>
            <source>&amp;Tokens</source>
            <translation>词元(&amp;T)</translation>
        </message>
        <message>
            <source>1 token</source>
            <translation>1 个词元</translation>
        </message>
        <message>
            <source>%1 tokens</source>
            <translation>%1 个词元</translation>
        </message>
        <message>
            <source>Clear the text</source>
            <translation>清除文本</translation>
        </message>
        <message>
            <source>Tokens, one chip each</source>
            <translation>词元，每个一个标签</translation>
        </message>
    </context>
    <context>
        <name>ui::TokenChips</name>
        <message>
            <source>Tokens</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>Token %1: “%2” — click to follow it as the query</source>
            <translation>词元 %1：“%2” — 点击即可把它作为查询来跟踪</translation>
        </message>
        <message>
            <source>Token %1: “%2”, id %3 — click to follow it as the query</source>
            <translation>词元 %1：“%2”，编号 %3 — 点击即以它为查询</translation>
        </message>
    </context>
    <context>
        <name>ui::WalkthroughPanel</name>
        <message>
            <source>%1: turned by position</source>
            <translation>%1：按位置旋转</translation>
        </message>
        <message>
            <source>before the turn</source>
            <translation>旋转前</translation>
        </message>
        <message>
            <source>after the turn</source>
            <translation>旋转后</translation>
        </message>
        <message>
            <source>%1 (position %2)</source>
            <translation>%1（位置 %2）</translation>
        </message>
        <message>
            <source>&amp;Copy the walkthrough</source>
            <translation>复制逐步演算(&amp;C)</translation>
        </message>
        <message>
            <source>… %1 more</source>
            <translation>… 另有 %1 个</translation>
        </message>
        <message>
            <source>&amp;Query</source>
            <translation>查询(&amp;Q)</translation>
        </message>
        <message>
            <source>&amp;Decimals</source>
            <translation>小数位(&amp;D)</translation>
        </message>
        <message>
            <source>The query token to work through</source>
            <translation>要逐步演算的查询词元</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>Query %1 “%2”%3: how its output row &lt;i&gt;z&lt;/i&gt;&lt;sub&gt;%1&lt;/sub&gt; is made.</source>
            <translation>查询 %1 “%2”%3：它的输出行 &lt;i&gt;z&lt;/i&gt;&lt;sub&gt;%1&lt;/sub&gt; 是如何得到的。</translation>
        </message>
        <message>
            <source>, head %1</source>
            <translation>，第 %1 头</translation>
        </message>
        <message>
            <source>key &lt;i&gt;j&lt;/i&gt;</source>
            <translation>键 &lt;i&gt;j&lt;/i&gt;</translation>
        </message>
        <message>
            <source>scaled ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt;</source>
            <translation>缩放 ÷ √&lt;i&gt;d&lt;/i&gt;&lt;sub&gt;k&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>scaled ÷ &lt;i&gt;T&lt;/i&gt;</source>
            <translation>缩放 ÷ &lt;i&gt;T&lt;/i&gt;</translation>
        </message>
        <message>
            <source>%1 “%2”</source>
            <translation>%1 “%2”</translation>
        </message>
        <message>
            <source>%1 × %2 = %3</source>
            <translation>%1 × %2 = %3</translation>
        </message>
        <message>
            <source>w(%1,%2) · v%3: the value of key %2, weighted by how much query %1 attends to it</source>
            <translation>w(%1,%2) · v%3：键 %2 的值，按查询 %1 对它的关注程度加权</translation>
        </message>
        <message>
            <source>… and %1 more keys</source>
            <translation>… 另有 %1 个键</translation>
        </message>
        <message>
            <source>Row %1 of Z, the output of this head for “%2”</source>
            <translation>Z 的第 %1 行，即这个头对“%2”的输出</translation>
        </message>
        <message>
            <source>key j</source>
            <translation>键 j</translation>
        </message>
        <message>
            <source>score = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;%1&lt;/sub&gt;·&lt;i&gt;k&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</source>
            <translation>分数 = &lt;i&gt;q&lt;/i&gt;&lt;sub&gt;%1&lt;/sub&gt;·&lt;i&gt;k&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;%1j&lt;/sub&gt;</source>
            <translation>&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;%1j&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;%1j&lt;/sub&gt; · &lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</source>
            <translation>&lt;i&gt;w&lt;/i&gt;&lt;sub&gt;%1j&lt;/sub&gt; · &lt;i&gt;v&lt;/i&gt;&lt;sub&gt;j&lt;/sub&gt;</translation>
        </message>
        <message>
            <source>%1: z%2 = Σⱼ w%2ⱼ·vⱼ = %3</source>
            <translation>%1：z%2 = Σⱼ w%2ⱼ·vⱼ = %3</translation>
        </message>
        <message>
            <source>Walkthrough of one query</source>
            <translation>一个查询的逐步演算</translation>
        </message>
        <message>
            <source>%1 (masked)</source>
            <translation>%1（已屏蔽）</translation>
        </message>
    </context>
    <context>
        <name>ui::MatrixTitle</name>
        <message>
            <source>X</source>
            <translation>X</translation>
        </message>
        <message>
            <source>W_Q</source>
            <translation>W_Q</translation>
        </message>
        <message>
            <source>W_K</source>
            <translation>W_K</translation>
        </message>
        <message>
            <source>W_V</source>
            <translation>W_V</translation>
        </message>
        <message>
            <source>W_O</source>
            <translation>W_O</translation>
        </message>
        <message>
            <source>b_Q</source>
            <translation>b_Q</translation>
        </message>
        <message>
            <source>b_K</source>
            <translation>b_K</translation>
        </message>
        <message>
            <source>b_V</source>
            <translation>b_V</translation>
        </message>
        <message>
            <source>b_O</source>
            <translation>b_O</translation>
        </message>
    </context>
    <context>
        <name>ui::Presets</name>
        <message>
            <source>The Illustrated: Self-Attention example</source>
            <translation>《图解自注意力》中的示例</translation>
        </message>
        <message>
            <source>The worked example of the article &quot;Illustrated: Self-Attention&quot;: 3 tokens, d_model 4, d_k 3, scores not scaled</source>
            <translation>文章《Illustrated: Self-Attention》（图解自注意力）中的计算示例：3 个词元，d_model 4，d_k 3，分数不缩放</translation>
        </message>
        <message>
            <source>The same example, scaled by √d_k</source>
            <translation>同一示例，按 √d_k 缩放</translation>
        </message>
        <message>
            <source>The same worked example with the scores divided by √d_k</source>
            <translation>同一计算示例，分数除以 √d_k</translation>
        </message>
        <message>
            <source>&quot;Thinking Machines&quot; at full size</source>
            <translation>真实规模的“Thinking Machines”</translation>
        </message>
        <message>
            <source>The two words of The Illustrated Transformer at a real model's size: d_model 512, d_k = d_v = 64</source>
            <translation>《The Illustrated Transformer》中的两个词，按真实模型的规模：d_model 512，d_k = d_v = 64</translation>
        </message>
        <message>
            <source>A sentence that only looks back</source>
            <translation>只向前看的句子</translation>
        </message>
        <message>
            <source>An 8-token English sentence with a causal mask and sinusoidal positional encoding</source>
            <translation>一个 8 个词元的英文句子，带因果掩码和正弦位置编码</translation>
        </message>
        <message>
            <source>Two heads and W_O</source>
            <translation>两个头与 W_O</translation>
        </message>
        <message>
            <source>Two heads over d_model 8, joined by an output projection W_O</source>
            <translation>d_model 8 上的两个头，由输出投影 W_O 合并</translation>
        </message>
        <message>
            <source>A Chinese sentence</source>
            <translation>一个中文句子</translation>
        </message>
        <message>
            <source>A short Chinese sentence, one token per character</source>
            <translation>一个简短的中文句子，每个汉字一个词元</translation>
        </message>
        <message>
            <source>Illustrated: Self-Attention</source>
            <translation>图解自注意力</translation>
        </message>
        <message>
            <source>Illustrated: Self-Attention, scaled by √d_k</source>
            <translation>图解自注意力，按 √d_k 缩放</translation>
        </message>
        <message>
            <source>A causal sentence</source>
            <translation>带因果掩码的句子</translation>
        </message>
        <message>
            <source>The induction head (built-in model)</source>
            <translation>归纳头（内置模型）</translation>
        </message>
        <message>
            <source>Words said twice: layer 2, head 2 looks from the last word to the word after its earlier copy, and Next Token predicts that word</source>
            <translation>说了两遍的词：第 2 层第 2 个头从最后一个词看向它上一次出现之后的那个词，“下一个词元”预测的正是那个词</translation>
        </message>
        <message>
            <source>The previous-token head (built-in model)</source>
            <translation>前一词元头（内置模型）</translation>
        </message>
        <message>
            <source>A sentence: layer 1, head 1 looks from each token to the one before it</source>
            <translation>一个句子：第 1 层第 1 个头从每个词元看向它前面的那个词元</translation>
        </message>
        <message>
            <source>A story with two names (built-in model)</source>
            <translation>有两个名字的故事（内置模型）</translation>
        </message>
        <message>
            <source>When Mary and John went to the store, John gave a drink to …: layer 2, head 2 looks from the name said again to the word after its first mention</source>
            <translation>一个有两个名字的英文故事（“玛丽和约翰去了商店，约翰把一杯饮料给了……”）：第 2 层第 2 个头从再次出现的名字看向它第一次出现之后的那个词</translation>
        </message>
    </context>
    <context>
        <name>ui::HelpDialogs</name>
        <message>
            <source>Type a text in the Tokens line: the model's tokenizer splits it into tokens (a word may be several), and every number follows as you type.</source>
            <translation>在“词元”一栏中输入文本：模型的分词器把它切分成词元（一个词可能是几个词元），所有数字随输入即时更新。</translation>
        </message>
        <message>
            <source>The heatmap's Range sets the ends of the colour map: 0 to 1, the matrix's smallest and largest value, each row's own, or a logarithmic scale for weights too small to tell apart; the overview and the exports follow it.</source>
            <translation>热力图的“范围”决定色图两端代表的值：0 到 1、矩阵的最小值和最大值、每行各自的范围，或用于区分极小权重的对数刻度；总览和导出都随之改变。</translation>
        </message>
        <message>
            <source>Choose what the colours stand for.</source>
            <translation>选择颜色代表什么。</translation>
        </message>
        <message>
            <source>The Overview panel draws each layer × head as a small heatmap with what its pattern looks like; click one to show it. The Head View joins each query to the keys it attends to by lines as strong as the weights, one colour per head.</source>
            <translation>“总览”面板把每个层 × 头画成一张小热力图，并说明它的模式；点击其中一张即可显示它。“头视图”用粗细随权重变化的线把每个查询连到它关注的键，每个头一种颜色。</translation>
        </message>
        <message>
            <source>See every layer and head at once.</source>
            <translation>一次看遍每一层、每个头。</translation>
        </message>
        <message>
            <source>File › Open Model reads a GPT-2-family checkpoint folder: its tokenizer splits your text, every view shows the chosen layer, and the Next Token panel ranks what the model predicts next, with the change your edits of its weights make.</source>
            <translation>“文件 › 打开模型”读取 GPT-2 系列的检查点文件夹：由它的分词器切分你的文本，每个视图显示所选的层，“下一个词元”面板列出模型预测的下一个词元，以及你对其权重的编辑带来的变化。</translation>
        </message>
        <message>
            <source>Open a real model.</source>
            <translation>打开真实的模型。</translation>
        </message>
        <message>
            <source>Quick Start</source>
            <translation>快速入门</translation>
        </message>
        <message>
            <source>Three things to try</source>
            <translation>试试这三件事</translation>
        </message>
        <message>
            <source>Type a sentence in the Tokens line: every word becomes a token, and every number follows as you type.</source>
            <translation>在“词元”一栏中输入一个句子：每个词都成为一个词元，所有数字随输入即时更新。</translation>
        </message>
        <message>
            <source>Hover a number (in the heatmap, the steps or the tables) to see the arithmetic behind it.</source>
            <translation>将鼠标悬停在一个数字上（热图、步骤或表格中），即可看到它背后的算式。</translation>
        </message>
        <message>
            <source>Press %1 for teaching mode: full screen, one step per slide; Esc leaves.</source>
            <translation>按 %1 进入教学模式：全屏显示，每张幻灯片一个步骤；按 Esc 退出。</translation>
        </message>
        <message>
            <source>Help › Quick Start shows this again.</source>
            <translation>“帮助 › 快速入门”可再次打开本窗口。</translation>
        </message>
        <message>
            <source>Quick start</source>
            <translation>快速入门</translation>
        </message>
        <message>
            <source>Don't show again</source>
            <translation>不再显示</translation>
        </message>
        <message>
            <source>Keyboard Shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>What You Can Do</source>
            <translation>你能做什么</translation>
        </message>
        <message>
            <source>What you can do</source>
            <translation>你能做什么</translation>
        </message>
        <message>
            <source>Type your own sentence.</source>
            <translation>输入你自己的句子。</translation>
        </message>
        <message>
            <source>The token line re-tokenizes as you type (a Chinese character is a token of its own); new tokens get derived embedding rows, rows you edited stay with their token.</source>
            <translation>词元栏随输入即时重新切分（每个汉字自成一个词元）；新词元得到推导出的嵌入行，你编辑过的行跟随它的词元。</translation>
        </message>
        <message>
            <source>Edit every number.</source>
            <translation>编辑每一个数字。</translation>
        </message>
        <message>
            <source>X, W_Q, W_K, W_V and W_O are tables: type into a cell, paste a block from a spreadsheet, fill with seeded random numbers, zeros or the identity, scale by a factor, change d_model, d_k, d_v and the number of heads. Every edit can be undone and everything recomputes live.</source>
            <translation>X、W_Q、W_K、W_V 和 W_O 都是表格：在单元格中输入，从电子表格粘贴一块，用带种子的随机数、零或单位矩阵填充，乘以一个系数，修改 d_model、d_k、d_v 和头数。每次编辑都可以撤销，一切即时重新计算。</translation>
        </message>
        <message>
            <source>See every step.</source>
            <translation>看清每一步。</translation>
        </message>
        <message>
            <source>The steps panel shows the seven steps with their formula, shape and matrix; the walkthrough lays out one query's scores, softmax, weighted values and sum as the article does.</source>
            <translation>步骤面板列出七个步骤及其公式、形状和矩阵；逐步演算像那篇文章一样，展开一个查询的分数、softmax、加权值与求和。</translation>
        </message>
        <message>
            <source>Ask any number where it came from.</source>
            <translation>问任何一个数字从何而来。</translation>
        </message>
        <message>
            <source>Hover a cell: the tooltip shows its arithmetic and the rows and columns it came from light up.</source>
            <translation>将鼠标悬停在单元格上：提示显示它的算式，它所来自的行和列会高亮。</translation>
        </message>
        <message>
            <source>Teach with it.</source>
            <translation>用它来教学。</translation>
        </message>
        <message>
            <source>View › Teaching Mode goes full screen, one step per slide; Right, Left, Page Down, Page Up and Space move, Ctrl + and Ctrl − zoom, Esc leaves. It walks the chosen query and head through the steps in full, then shows every query at once, and follows live edits. File › Export Slides writes the same slides as a PDF deck.</source>
            <translation>“视图 › 教学模式”进入全屏，每张幻灯片一个步骤；右、左、Page Down、Page Up 和空格键翻页，Ctrl + 和 Ctrl − 缩放，Esc 退出。它先完整演算所选查询和头的每一步，再同时展示所有查询，并跟随实时编辑。“文件 › 导出幻灯片”把同样的幻灯片写成 PDF。</translation>
        </message>
        <message>
            <source>Show why √d_k.</source>
            <translation>说明为什么要除以 √d_k。</translation>
        </message>
        <message>
            <source>View › Why Divide by √d_k? charts, for random queries and keys, how the spread of the scores, the softmax's peak, its entropy and its gradient change with d_k, scaled and not.</source>
            <translation>“视图 › 为什么除以 √d_k？”针对随机的查询和键，绘出分数的离散程度、softmax 的峰值、熵和梯度如何随 d_k 变化，缩放与不缩放对照。</translation>
        </message>
        <message>
            <source>Export anything.</source>
            <translation>导出任何内容。</translation>
        </message>
        <message>
            <source>The heatmap as PNG, SVG or PDF; a PDF report of every step; a one-page handout; every step matrix as CSV and the whole computation as JSON; PyTorch code that reproduces the session; any matrix in or out as .npy or CSV.</source>
            <translation>热图可导出为 PNG、SVG 或 PDF；每一步的 PDF 报告；一页讲义；每个步骤矩阵的 CSV 以及整个计算的 JSON；重现本会话的 PyTorch 代码；任何矩阵都可以 .npy 或 CSV 导入导出。</translation>
        </message>
        <message>
            <source>Never lose work.</source>
            <translation>永不丢失工作。</translation>
        </message>
        <message>
            <source>Saves are atomic, and a session with unsaved changes is also written every 30 seconds; after a crash the next start offers it back.</source>
            <translation>保存是原子的；有未保存更改的会话每 30 秒另存一次；崩溃后下次启动时会提供恢复。</translation>
        </message>
        <message>
            <source>Go long.</source>
            <translation>处理长序列。</translation>
        </message>
        <message>
            <source>Sessions of up to 8192 tokens and d_model 4096 open and stay live; matrices too large to read as numbers show as heatmaps you can zoom into.</source>
            <translation>最多 8192 个词元、d_model 4096 的会话也能打开并保持实时；大到无法逐个读数的矩阵显示为可以放大查看的热图。</translation>
        </message>
        <message>
            <source>Fit a projector.</source>
            <translation>适配投影仪。</translation>
        </message>
        <message>
            <source>The window works from 1024 × 640 up: toolbars and tools wrap onto more lines instead of shrinking.</source>
            <translation>窗口从 1024 × 640 起即可使用：工具栏和工具会换行，而不是被挤小。</translation>
        </message>
        <message>
            <source>Reach it with a screen reader.</source>
            <translation>可用屏幕阅读器访问。</translation>
        </message>
        <message>
            <source>Every control has a name, in English and Chinese; the heatmap reads as a table.</source>
            <translation>每个控件都有中英文名称；热图可作为表格朗读。</translation>
        </message>
        <message>
            <source>Speak Chinese.</source>
            <translation>说中文。</translation>
        </message>
        <message>
            <source>View › Language / 语言 switches every menu, panel, slide and Qt's own dialogs between English and Simplified Chinese without a restart, and remembers the choice.</source>
            <translation>“视图 › Language / 语言”无需重启即可在英文和简体中文之间切换所有菜单、面板、幻灯片以及 Qt 自带的对话框，并记住选择。</translation>
        </message>
        <message>
            <source>See what a trained model learnt</source>
            <translation>看看训练好的模型学到了什么</translation>
        </message>
        <message>
            <source>The small model that comes with the program has heads you can find and name. Open it where one shows:</source>
            <translation>程序自带的小模型里有一些能找到、能叫出名字的注意力头。在能看到它们的地方打开它：</translation>
        </message>
    </context>
    <context>
        <name>ui::HeatmapZoomView</name>
        <message>
            <source>row %1</source>
            <translation>第 %1 行</translation>
        </message>
        <message>
            <source>row %1 (%2)</source>
            <translation>第 %1 行（%2）</translation>
        </message>
        <message>
            <source>column %1</source>
            <translation>第 %1 列</translation>
        </message>
        <message>
            <source>column %1 (%2)</source>
            <translation>第 %1 列（%2）</translation>
        </message>
        <message>
            <source>%1, %2: %3</source>
            <translation>%1，%2：%3</translation>
        </message>
    </context>
    <context>
        <name>CellStyle</name>
        <message>
            <source>Column %1</source>
            <translation>第 %1 列</translation>
        </message>
        <message>
            <source>Head %1, column %2 (column %3 of %4)</source>
            <translation>第 %1 个头的第 %2 列（共 %4 列中的第 %3 列）</translation>
        </message>
        <message>
            <source>Head %1, row %2 (row %3 of %4)</source>
            <translation>第 %1 个头的第 %2 行（共 %4 行中的第 %3 行）</translation>
        </message>
        <message>
            <source>Row %1</source>
            <translation>第 %1 行</translation>
        </message>
        <message>
            <source>h%1·%2</source>
            <translation>头%1·%2</translation>
        </message>
        <message>
            <source>Masked: key %1 comes after query %2, so the causal mask gives it no weight.</source>
            <translation>已屏蔽：键 %1 在查询 %2 之后，因果掩码不给它任何权重。</translation>
        </message>
    </context>
    <context>
        <name>HeatmapRenderer</name>
        <message>
            <source>row min</source>
            <translation>行最小值</translation>
        </message>
        <message>
            <source>row max</source>
            <translation>行最大值</translation>
        </message>
        <message>
            <source>fixed range</source>
            <translation>固定范围</translation>
        </message>
        <message>
            <source>matrix min–max</source>
            <translation>矩阵最小–最大</translation>
        </message>
        <message>
            <source>each row min–max</source>
            <translation>每行最小–最大</translation>
        </message>
        <message>
            <source>log scale</source>
            <translation>对数刻度</translation>
        </message>
        <message>
            <source>1 cell is 0 or below, which a log scale cannot place; it is drawn in the colour of the scale's lowest end.</source>
            <translation>有 1 个单元格的值小于或等于 0，对数刻度无法表示它；它以刻度最低端的颜色绘制。</translation>
        </message>
        <message>
            <source>%1 cells are 0 or below, which a log scale cannot place; they are drawn in the colour of the scale's lowest end.</source>
            <translation>有 %1 个单元格的值小于或等于 0，对数刻度无法表示它们；它们以刻度最低端的颜色绘制。</translation>
        </message>
        <message>
            <source>1 cell of the heatmaps drawn is 0 or below, which a log scale cannot place; it is drawn in the colour of the lowest end of its heatmap's scale.</source>
            <translation>所绘热图中有 1 个单元格的值小于或等于 0，对数刻度无法表示它；它以所在热图刻度最低端的颜色绘制。</translation>
        </message>
        <message>
            <source>%1 cells of the heatmaps drawn are 0 or below, which a log scale cannot place; they are drawn in the colour of the lowest end of their heatmap's scale.</source>
            <translation>所绘热图中有 %1 个单元格的值小于或等于 0，对数刻度无法表示它们；它们以各自热图刻度最低端的颜色绘制。</translation>
        </message>
    </context>
    <context>
        <name>Overview</name>
        <message>
            <source>%1 · weights edited</source>
            <translation>%1 · 权重已编辑</translation>
        </message>
        <message>
            <source>%1 · dashed: weights edited</source>
            <translation>%1 · 虚线框：权重已编辑</translation>
        </message>
        <message>
            <source>induction</source>
            <translation>归纳头</translation>
        </message>
        <message>
            <source>induction %1 · duplicate token %2</source>
            <translation>归纳 %1 · 重复词元 %2</translation>
        </message>
    <message>
        <source>zeroed</source>
        <translation>已置零</translation>
    </message>
        <message>
            <source>cell min</source>
            <translation>格内最小值</translation>
        </message>
        <message>
            <source>cell max</source>
            <translation>格内最大值</translation>
        </message>
        <message>
            <source>previous token</source>
            <translation>前一个词元</translation>
        </message>
        <message>
            <source>first token / sink</source>
            <translation>首词元 / 汇聚</translation>
        </message>
        <message>
            <source>diagonal / self</source>
            <translation>对角线 / 自身</translation>
        </message>
        <message>
            <source>broad / uniform</source>
            <translation>分散 / 均匀</translation>
        </message>
        <message>
            <source>mixed</source>
            <translation>混合</translation>
        </message>
        <message>
            <source>previous %1 · first %2 · self %3 · entropy %4</source>
            <translation>前一个 %1 · 首个 %2 · 自身 %3 · 熵 %4</translation>
        </message>
        <message>
            <source>Attention of every layer and head</source>
            <translation>每一层每个头的注意力</translation>
        </message>
        <message>
            <source>%1 — %2</source>
            <translation>%1 — %2</translation>
        </message>
        <message>
            <source>layers: %1 · heads: %2 · tokens: %3 · colours: %4</source>
            <translation>层数：%1 · 头数：%2 · 词元：%3 · 颜色：%4</translation>
        </message>
        <message>
            <source>layer %1</source>
            <translation>第 %1 层</translation>
        </message>
        <message>
            <source>Layer %1 · head %2: %3</source>
            <translation>第 %1 层 · 头 %2：%3</translation>
        </message>
        <message>
            <source>head %1</source>
            <translation>头 %1</translation>
        </message>
    </context>
    <context>
        <name>HeadView</name>
        <message>
            <source>Layer %1 · head %2</source>
            <translation>第 %1 层 · 头 %2</translation>
        </message>
        <message>
            <source>Layer %1 · no head chosen</source>
            <translation>第 %1 层 · 未选择头</translation>
        </message>
        <message>
            <source>Layer %1 · heads %2</source>
            <translation>第 %1 层 · 头 %2</translation>
        </message>
        <message>
            <source>queries</source>
            <translation>查询</translation>
        </message>
        <message>
            <source>keys</source>
            <translation>键</translation>
        </message>
        <message>
            <source>head %1</source>
            <translation>头 %1</translation>
        </message>
        <message>
            <source>The head view draws up to %1 tokens; this text has %2.</source>
            <translation>头视图最多绘制 %1 个词元；此文本有 %2 个。</translation>
        </message>
    </context>
    <context>
        <name>ui::HeadViewWidget</name>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>&amp;Layer</source>
            <translation>层(&amp;L)</translation>
        </message>
        <message>
            <source>H&amp;eads</source>
            <translation>头(&amp;E)</translation>
        </message>
        <message>
            <source>Head view: queries on the left, keys on the right, lines weighted by attention</source>
            <translation>头视图：左侧为查询，右侧为键，连线按注意力加权</translation>
        </message>
        <message>
            <source>%1 of %2</source>
            <translation>第 %1 个（共 %2 个）</translation>
        </message>
        <message>
            <source>All heads</source>
            <translation>所有头</translation>
        </message>
        <message>
            <source>Head %1</source>
            <translation>头 %1</translation>
        </message>
        <message>
            <source>head %1</source>
            <translation>头 %1</translation>
        </message>
        <message>
            <source>Show the lines of head %1</source>
            <translation>显示头 %1 的连线</translation>
        </message>
    </context>
    <context>
        <name>ui::OverviewWidget</name>
        <message>
            <source>%1 (on a random sequence said twice)</source>
            <translation>%1（在重复两遍的随机序列上测得）</translation>
        </message>
        <message>
            <source>Overview of every layer and head</source>
            <translation>每一层每个头的总览</translation>
        </message>
        <message>
            <source>Layer %1 · head %2: %3
%4
Click to show this head.</source>
            <translation>第 %1 层 · 头 %2：%3
%4
点击以显示此头。</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>Nothing to show yet</source>
            <translation>暂无可显示的内容</translation>
        </message>
    </context>
    <context>
        <name>ModelState</name>
        <message>
            <source>%1, layer %2</source>
            <translation>%1，第 %2 层</translation>
        </message>
        <message>
            <source>Model folder</source>
            <translation>模型文件夹</translation>
        </message>
        <message>
            <source>Text</source>
            <translation>文本</translation>
        </message>
        <message>
            <source>Layer</source>
            <translation>层</translation>
        </message>
    </context>
    <context>
        <name>ModelLoader</name>
        <message>
            <source>Opening a Model</source>
            <translation>打开模型</translation>
        </message>
        <message>
            <source>Loading %1 and running its forward pass…</source>
            <translation>正在载入 %1 并运行前向计算…</translation>
        </message>
        <message>
            <source>%1 is not a folder.</source>
            <translation>%1 不是文件夹。</translation>
        </message>
        <message>
            <source>config.json is missing (the model's architecture and sizes).</source>
            <translation>缺少 config.json（模型的架构与尺寸）。</translation>
        </message>
        <message>
            <source>model.safetensors is missing; pytorch_model.bin is a pickle this program does not read (convert it to safetensors).</source>
            <translation>缺少 model.safetensors；pytorch_model.bin 是本程序不读取的 pickle 文件（请先转换为 safetensors）。</translation>
        </message>
        <message>
            <source>model.safetensors is missing (the weights).</source>
            <translation>缺少 model.safetensors（权重）。</translation>
        </message>
        <message>
            <source>merges.txt is missing (vocab.json needs it), and there is no tokenizer.json.</source>
            <translation>缺少 merges.txt（vocab.json 需要它），也没有 tokenizer.json。</translation>
        </message>
        <message>
            <source>vocab.json is missing (merges.txt needs it), and there is no tokenizer.json.</source>
            <translation>缺少 vocab.json（merges.txt 需要它），也没有 tokenizer.json。</translation>
        </message>
        <message>
            <source>The tokenizer is missing: vocab.json with merges.txt, or tokenizer.json.</source>
            <translation>缺少分词器：vocab.json 加 merges.txt，或 tokenizer.json。</translation>
        </message>
        <message>
            <source>%1 cannot be opened as a model.</source>
            <translation>%1 无法作为模型打开。</translation>
        </message>
        <message>
            <source>config.json is missing (the model's sizes: n_layer, n_embd, n_head, …).</source>
            <translation>缺少 config.json（模型的尺寸：n_layer、n_embd、n_head 等）。</translation>
        </message>
        <message>
            <source>%1 cannot be opened as a GPT-2 model.</source>
            <translation>%1 无法作为 GPT-2 模型打开。</translation>
        </message>
    </context>
    <context>
        <name>ui::PredictionPanel</name>
        <message>
            <source>%1 %</source>
            <translation>%1%</translation>
        </message>
        <message>
            <source>&amp;Next token after</source>
            <translation>预测此后的词元(&amp;N)</translation>
        </message>
        <message>
            <source>#</source>
            <translation>#</translation>
        </message>
        <message>
            <source>Token</source>
            <translation>词元</translation>
        </message>
        <message>
            <source>Probability</source>
            <translation>概率</translation>
        </message>
        <message>
            <source>Change</source>
            <translation>变化</translation>
        </message>
        <message>
            <source>The ten most probable next tokens</source>
            <translation>概率最高的十个下一个词元</translation>
        </message>
        <message>
            <source>A model's next token shows here: File › Open Model… opens a GPT-2 checkpoint folder.</source>
            <translation>这里显示模型预测的下一个词元：用“文件 › 打开模型…”打开一个 GPT-2 检查点文件夹。</translation>
        </message>
        <message>
            <source>the last token</source>
            <translation>最后一个词元</translation>
        </message>
        <message>
            <source>token %1 “%2”</source>
            <translation>词元 %1“%2”</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>No prediction: the forward pass overflowed float32 in layer %1, whose output is no longer made of finite numbers. Undo the edit or give a smaller value.</source>
            <translation>无法预测：前向计算在第 %1 层超出了 float32 的范围，该层的输出已不全是有限数。请撤销修改，或改用较小的值。</translation>
        </message>
        <message>
            <source>No prediction: the forward pass overflowed float32 in the logits after token %1, which are no longer finite numbers. Undo the edit or give a smaller value.</source>
            <translation>无法预测：前向计算在词元 %1 之后的 logits 中超出了 float32 的范围，它们已不是有限数。请撤销修改，或改用较小的值。</translation>
        </message>
        <message>
            <source>After token %1 (the checkpoint, no edits).</source>
            <translation>词元 %1 之后（检查点原样，未修改）。</translation>
        </message>
        <message>
            <source>After token %1, with %2; ▲ ▼: the change against the checkpoint without edits.</source>
            <translation>词元 %1 之后，%2；▲ ▼：与未修改的检查点相比的变化。</translation>
        </message>
        <message>
            <source>After token %1, with %2; comparing with the checkpoint without edits…</source>
            <translation>词元 %1 之后，%2；正在与未修改的检查点比较…</translation>
        </message>
        <message>
            <source>1 edited weight</source>
            <translation>已修改 1 个权重</translation>
        </message>
        <message>
            <source>%1 edited weights</source>
            <translation>已修改 %1 个权重</translation>
        </message>
        <message>
            <source>1 zeroed head</source>
            <translation>已置零 1 个头</translation>
        </message>
        <message>
            <source>%1 zeroed heads</source>
            <translation>已置零 %1 个头</translation>
        </message>
        <message>
            <source> and </source>
            <translation>、</translation>
        </message>
        <message>
            <source>Comparing with the checkpoint without edits…</source>
            <translation>正在与未修改的检查点比较…</translation>
        </message>
        <message>
            <source>▲ +%1 pts</source>
            <translation>▲ +%1 百分点</translation>
        </message>
        <message>
            <source>▼ −%1 pts</source>
            <translation>▼ −%1 百分点</translation>
        </message>
        <message>
            <source>Without edits: %1</source>
            <translation>未修改时：%1</translation>
        </message>
        <message>
            <source>“%1”, token id %2</source>
            <translation>“%1”，词元编号 %2</translation>
        </message>
    </context>
    <context>
        <name>GridFigure</name>
        <message>
            <source>The token each layer would predict after each position</source>
            <translation>每一层在每个位置之后会预测的词元</translation>
        </message>
        <message>
            <source>colour: its probability</source>
            <translation>颜色：它的概率</translation>
        </message>
        <message>
            <source>embeddings</source>
            <translation>嵌入</translation>
        </message>
        <message>
            <source>after layer %1</source>
            <translation>第 %1 层之后</translation>
        </message>
        <message>
            <source>Logit lens</source>
            <translation>Logit 透镜</translation>
        </message>
        <message>
            <source>Each head's and MLP's share of the logit of %1 at position %2 (logit %3)</source>
            <translation>各头与 MLP 在位置 %2 对 %1 的 logit 的贡献（logit %3）</translation>
        </message>
        <message>
            <source>head %1</source>
            <translation>头 %1</translation>
        </message>
        <message>
            <source>MLP</source>
            <translation>MLP</translation>
        </message>
        <message>
            <source>layer %1</source>
            <translation>第 %1 层</translation>
        </message>
        <message>
            <source>colour: the share (embeddings %1, biases %2)</source>
            <translation>颜色：贡献（嵌入 %1，偏置 %2）</translation>
        </message>
        <message>
            <source>Direct logit attribution</source>
            <translation>直接 logit 归因</translation>
        </message>
        <message>
            <source>colour: the share of the logit difference restored (clean %1, corrupted %2)</source>
            <translation>颜色：恢复的 logit 差值比例（干净 %1，损坏 %2）</translation>
        </message>
        <message>
            <source>The stream entering each layer, restored at one position</source>
            <translation>进入每层的残差流，在一个位置恢复</translation>
        </message>
        <message>
            <source>Each head's output, restored at every position</source>
            <translation>每个头的输出，在所有位置恢复</translation>
        </message>
        <message>
            <source>colour: the logit difference (clean %1 and corrupted %2 barely differ, so no share is shown)</source>
            <translation>颜色：logit 差值（干净 %1 与损坏 %2 几乎相同，因此不显示比例）</translation>
        </message>
        <message>
            <source>Activation patching</source>
            <translation>激活修补</translation>
        </message>
    </context>
    <context>
        <name>RopeChart</name>
        <message>
            <source>q of %1 · k of key %2 “%3”</source>
            <translation>%1 的 q · 键 %2 “%3” 的 k</translation>
        </message>
        <message>
            <source>score q′·k′ as the query moves away from the key</source>
            <translation>查询远离键时的分数 q′·k′</translation>
        </message>
        <message>
            <source>distance (tokens)</source>
            <translation>距离（词元）</translation>
        </message>
    </context>
    <context>
        <name>ui::RopeChartWidget</name>
        <message>
            <source>The score of this query with its strongest key if the two stood 0, 1, 2 … tokens apart: rotary positions make it depend on the distance alone. The dot marks their real distance.</source>
            <translation>如果这个查询与它最强的键相距 0、1、2 … 个词元，它们的分数是多少：旋转位置编码使分数只取决于距离。圆点标出它们的实际距离。</translation>
        </message>
    </context>
    <context>
        <name>hub::CachedModelsModel</name>
        <message>
            <source>unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <source>can be opened</source>
            <translation>可以打开</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Architecture</source>
            <translation>架构</translation>
        </message>
        <message>
            <source>Size on disk</source>
            <translation>磁盘占用</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
    </context>
    <context>
        <name>hub::DownloadDialog</name>
        <message>
            <source>Download Model</source>
            <translation>下载模型</translation>
        </message>
        <message>
            <source>Only the files the program reads are fetched, into the Hugging Face cache (%1), where transformers finds them too.</source>
            <translation>只下载本程序读取的文件，存入 Hugging Face 缓存（%1），transformers 也能在那里找到它们。</translation>
        </message>
        <message>
            <source>Download</source>
            <translation>下载</translation>
        </message>
        <message>
            <source>Repository (ORG/NAME[@REVISION]):</source>
            <translation>仓库（ORG/NAME[@REVISION]）：</translation>
        </message>
        <message>
            <source>"%1" is not a repository id: give ORG/NAME, such as openai-community/gpt2, optionally with @REVISION</source>
            <translation>“%1”不是仓库 ID：请给出 ORG/NAME，例如 openai-community/gpt2，也可以加上 @REVISION</translation>
        </message>
        <message>
            <source>Asking the Hub for %1…</source>
            <translation>正在向 Hub 查询 %1…</translation>
        </message>
        <message>
            <source>Cancelled. What was received is kept: downloading again resumes it.</source>
            <translation>已取消。已收到的部分会保留：再次下载时从中断处继续。</translation>
        </message>
        <message>
            <source>time left unknown</source>
            <translation>剩余时间未知</translation>
        </message>
        <message>
            <source>%1:%2 left</source>
            <translation>剩余 %1:%2</translation>
        </message>
        <message>
            <source>%1 · %2 of %3 · %4/s · %5</source>
            <translation>%1 · %2 / %3 · %4/秒 · %5</translation>
        </message>
    </context>
    <context>
        <name>hub::OpenModelDialog</name>
        <message>
            <source>Open Model</source>
            <translation>打开模型</translation>
        </message>
        <message>
            <source>&lt;b&gt;Models on this computer&lt;/b&gt;</source>
            <translation>&lt;b&gt;这台电脑上的模型&lt;/b&gt;</translation>
        </message>
        <message>
            <source>In the Hugging Face cache, %1. A greyed model cannot be opened here; its status says why.</source>
            <translation>位于 Hugging Face 缓存 %1。灰色的模型无法在这里打开，“状态”一栏说明原因。</translation>
        </message>
        <message>
            <source>Models in the Hugging Face cache</source>
            <translation>Hugging Face 缓存中的模型</translation>
        </message>
        <message>
            <source>No models in the cache yet. Download one from the Hub (a network is needed once), or choose a folder that holds config.json, the weights as safetensors and the tokenizer.</source>
            <translation>缓存中还没有模型。可以从 Hub 下载一个（只需联网一次），或选择一个包含 config.json、safetensors 格式的权重和分词器的文件夹。</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Download…</source>
            <translation>下载…</translation>
        </message>
        <message>
            <source>Fetch a model from the Hugging Face Hub into the cache, then open it</source>
            <translation>从 Hugging Face Hub 下载模型到缓存，然后打开它</translation>
        </message>
        <message>
            <source>Choose Folder…</source>
            <translation>选择文件夹…</translation>
        </message>
        <message>
            <source>Open a model folder anywhere: config.json, the safetensors weights and the tokenizer</source>
            <translation>打开任意位置的模型文件夹：config.json、safetensors 权重和分词器</translation>
        </message>
        <message>
            <source>Open Model Folder</source>
            <translation>打开模型文件夹</translation>
        </message>
    </context>
    <context>
        <name>ui::Document</name>
        <message>
            <source>The forward pass of the text is still running.</source>
            <translation>文本的前向传播仍在运行。</translation>
        </message>
        <message>
            <source>Nothing appended: the text is %1 tokens, as many as %2 reads (its %3).</source>
            <translation>未追加：文本已有 %1 个词元，达到 %2 能读取的上限（其 %3）。</translation>
        </message>
        <message>
            <source>Nothing appended: the forward pass overflowed float32, and logits that are not finite numbers cannot be ranked. Undo the edit or give a smaller value.</source>
            <translation>未追加：前向传播超出了 float32 的范围，不是有限数的 logits 无法排序。请撤销该编辑或给一个更小的值。</translation>
        </message>
        <message>
            <source>Appended “%1”</source>
            <translation>追加了“%1”</translation>
        </message>
        <message>
            <source>Appended %1 tokens “%2”</source>
            <translation>追加了 %1 个词元“%2”</translation>
        </message>
        <message>
            <source>Only a model writes: open one first (File › Open Built-in Model).</source>
            <translation>只有模型才能续写：请先打开一个模型（文件 › 打开内置模型）。</translation>
        </message>
        <message>
            <source>%1. The model's tokens are kept; typed again or saved, the text reads as other tokens from token %2.</source>
            <translation>%1。已保留模型选择的词元；若重新输入或保存，文本从第 %2 个词元起会被读成其他词元。</translation>
        </message>
        <message>
            <source>Only a model has tokens to choose.</source>
            <translation>只有模型才有可选的词元。</translation>
        </message>
    </context>
    <context>
        <name>ui::PredictionPanel</name>
        <message>
            <source>&amp;Append</source>
            <translation>追加(&amp;A)</translation>
        </message>
        <message>
            <source>Append the token the model chooses to the text (Ctrl+Return); Undo takes it back</source>
            <translation>把模型选择的词元追加到文本末尾（Ctrl+Return）；撤销可将其收回</translation>
        </message>
        <message>
            <source>Append 1&amp;0</source>
            <translation>追加 1&amp;0 个</translation>
        </message>
        <message>
            <source>Append ten tokens, each chosen after the one before, as one undo step (Ctrl+Shift+Return)</source>
            <translation>追加十个词元，每个都在前一个之后选择，合为一个撤销步骤（Ctrl+Shift+Return）</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Sample</source>
            <translation>采样</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Top-k</source>
            <translation>Top-k</translation>
        </message>
        <message>
            <source>all</source>
            <translation>全部</translation>
        </message>
        <message>
            <source>Top-p</source>
            <translation>Top-p</translation>
        </message>
        <message>
            <source>Seed</source>
            <translation>种子</translation>
        </message>
        <message>
            <source>Off: the most probable token (greedy). On: drawn from the probabilities with the temperature, top-k, top-p and seed below, as --generate does</source>
            <translation>关闭：取概率最高的词元（贪心）。打开：按下面的温度、top-k、top-p 和种子从概率中抽取，与 --generate 相同</translation>
        </message>
        <message>
            <source>Writing: each token waits for the pass of the text before it…</source>
            <translation>正在续写：每个词元都要等待其前面文本的前向传播…</translation>
        </message>
        <message>
            <source>Token %1 of seed %2 comes next.</source>
            <translation>下一个是种子 %2 的第 %1 个词元。</translation>
        </message>
        <message>
            <source>--generate N with these options and --seed %1 writes the same tokens after the text where the seed was set (or the text typed last).</source>
            <translation>在设定种子时的文本（或最后输入的文本）之后，用相同选项和 --seed %1 的 --generate N 会写出相同的词元。</translation>
        </message>
        <message>
            <source>The same seed, options and text give the same tokens again, here and with --generate N --seed</source>
            <translation>相同的种子、选项和文本会再次给出相同的词元，在这里和用 --generate N --seed 都一样</translation>
        </message>
    </context>
    <context>
        <name>ui::MainMenus</name>
        <message>
            <source>&amp;Append Next Token</source>
            <translation>追加下一个词元(&amp;A)</translation>
        </message>
        <message>
            <source>Append the token the model chooses to the text, as the Next Token panel says</source>
            <translation>按“下一个词元”面板的设置，把模型选择的词元追加到文本末尾</translation>
        </message>
        <message>
            <source>Append &amp;10 Tokens</source>
            <translation>追加 &amp;10 个词元</translation>
        </message>
        <message>
            <source>Append ten tokens the model chooses, one after another, as one undo step</source>
            <translation>逐个追加模型选择的十个词元，合为一个撤销步骤</translation>
        </message>
    </context>
    <context>
        <name>ui::InstrumentView</name>
        <message>
            <source>Save Image…</source>
            <translation>保存图像…</translation>
        </message>
        <message>
            <source>Save Numbers…</source>
            <translation>保存数值…</translation>
        </message>
        <message>
            <source>There is nothing to save yet.</source>
            <translation>还没有可保存的内容。</translation>
        </message>
        <message>
            <source>JSON (*.json)</source>
            <translation>JSON (*.json)</translation>
        </message>
        <message>
            <source>CSV table (*.csv)</source>
            <translation>CSV 表格 (*.csv)</translation>
        </message>
        <message>
            <source>PNG image (*.png)</source>
            <translation>PNG 图像 (*.png)</translation>
        </message>
        <message>
            <source>SVG drawing (*.svg)</source>
            <translation>SVG 矢量图 (*.svg)</translation>
        </message>
        <message>
            <source>PDF document (*.pdf)</source>
            <translation>PDF 文档 (*.pdf)</translation>
        </message>
        <message>
            <source>Save Numbers</source>
            <translation>保存数值</translation>
        </message>
        <message>
            <source>Save Image</source>
            <translation>保存图像</translation>
        </message>
        <message>
            <source>%1 %</source>
            <translation>%1 %</translation>
        </message>
        <message>
            <source>&amp;Target token</source>
            <translation>目标词元(&amp;T)</translation>
        </message>
        <message>
            <source>The token whose probability (lens) or logit (attribution) is followed: the most probable next token, a Next Token candidate, or any one token typed (or #id)</source>
            <translation>跟踪其概率（透镜）或 logit（归因）的词元：最可能的下一个词元、“下一个词元”中的候选，或输入的任意单个词元（或 #编号）</translation>
        </message>
        <message>
            <source>Logit lens</source>
            <translation>Logit 透镜</translation>
        </message>
        <message>
            <source>Direct logit attribution</source>
            <translation>直接 logit 归因</translation>
        </message>
        <message>
            <source>“%1” cannot be the target: %2</source>
            <translation>“%1”不能作为目标：%2</translation>
        </message>
        <message>
            <source>the most probable next token</source>
            <translation>最可能的下一个词元</translation>
        </message>
        <message>
            <source>What the model would predict after each token if it stopped after each layer (its own prediction last).</source>
            <translation>假如模型在每一层之后停下，它在每个词元之后会预测什么（最后一行是模型自己的预测）。</translation>
        </message>
        <message>
            <source>What the model would predict after each token if it stopped after each layer (its own prediction last). Hover a cell for the probability of “%1” there.</source>
            <translation>假如模型在每一层之后停下，它在每个词元之后会预测什么（最后一行是模型自己的预测）。将鼠标停在格子上可查看“%1”在那里的概率。</translation>
        </message>
        <message>
            <source>The logit of “%1” after token %2 “%3” is %4: the embeddings give %5, the heads %6, the MLPs %7 and the biases %8.</source>
            <translation>词元 %2“%3”之后“%1”的 logit 为 %4：嵌入贡献 %5，各头 %6，各 MLP %7，偏置 %8。</translation>
        </message>
        <message>
            <source>The logit lens shows what a model would predict after each of its layers. File › Open Model… opens one (or the built-in model).</source>
            <translation>Logit 透镜显示模型在每一层之后会预测什么。用“文件 › 打开模型…”打开一个模型（或内置模型）。</translation>
        </message>
        <message>
            <source>Direct logit attribution shows how much each head and MLP of a model adds to the logit of a token. File › Open Model… opens one (or the built-in model).</source>
            <translation>直接 logit 归因显示模型的每个头和 MLP 为某个词元的 logit 贡献了多少。用“文件 › 打开模型…”打开一个模型（或内置模型）。</translation>
        </message>
        <message>
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <source>There is no token to attribute: the model's logits overflowed (see Next Token).</source>
            <translation>没有可归因的词元：模型的 logits 溢出了（见“下一个词元”）。</translation>
        </message>
        <message>
            <source>The embeddings</source>
            <translation>嵌入</translation>
        </message>
        <message>
            <source>The model's output</source>
            <translation>模型的输出</translation>
        </message>
        <message>
            <source>After layer %1</source>
            <translation>第 %1 层之后</translation>
        </message>
        <message>
            <source>%1, after token %2 “%3”:</source>
            <translation>%1，词元 %2“%3”之后：</translation>
        </message>
        <message>
            <source>the logits are not finite here</source>
            <translation>此处的 logits 不是有限数</translation>
        </message>
        <message>
            <source>predicts “%1” with probability %2</source>
            <translation>预测“%1”，概率 %2</translation>
        </message>
        <message>
            <source>“%1”: probability %2, rank %3</source>
            <translation>“%1”：概率 %2，排名第 %3</translation>
        </message>
        <message>
            <source>Layer %1, MLP</source>
            <translation>第 %1 层，MLP</translation>
        </message>
        <message>
            <source>Layer %1, head %2</source>
            <translation>第 %1 层，头 %2</translation>
        </message>
        <message>
            <source>(zeroed)</source>
            <translation>（已置零）</translation>
        </message>
        <message>
            <source>adds %1 to the logit of “%2” after token %3 (%4 in all)</source>
            <translation>为词元 %3 之后“%2”的 logit 贡献 %1（总计 %4）</translation>
        </message>
        <message>
            <source>(its output there, through the final norm at the whole stream's scale, dotted with the token's unembedding)</source>
            <translation>（它在该处的输出经过按整个残差流尺度的最终归一化，再与该词元的反嵌入向量做点积）</translation>
        </message>
    </context>
    <context>
        <name>BlockView</name>
        <message>
            <source>x: the stream in</source>
            <translation>x：流入的残差流</translation>
        </message>
        <message>
            <source>%1(x): the first norm</source>
            <translation>%1(x)：第一个归一化</translation>
        </message>
        <message>
            <source>attention: z·W_O + b</source>
            <translation>注意力：z·W_O + b</translation>
        </message>
        <message>
            <source>x + attention</source>
            <translation>x + 注意力</translation>
        </message>
        <message>
            <source>%1(x + attention): the second norm</source>
            <translation>%1(x + 注意力)：第二个归一化</translation>
        </message>
        <message>
            <source>%1(x): the second norm, of the same x</source>
            <translation>%1(x)：第二个归一化，读取同一个 x</translation>
        </message>
        <message>
            <source>MLP: %1</source>
            <translation>MLP：%1</translation>
        </message>
        <message>
            <source>x + attention + MLP: the stream out</source>
            <translation>x + 注意力 + MLP：流出的残差流</translation>
        </message>
        <message>
            <source>+ MLP: the stream out</source>
            <translation>+ MLP：流出的残差流</translation>
        </message>
        <message>
            <source>%1(x): the final norm</source>
            <translation>%1(x)：最终归一化</translation>
        </message>
        <message>
            <source>Layer %1 · position %2 “%3”</source>
            <translation>第 %1 层 · 位置 %2 “%3”</translation>
        </message>
        <message>
            <source>parallel residual: attention and MLP both read x</source>
            <translation>并行残差：注意力和 MLP 都读取 x</translation>
        </message>
        <message>
            <source>sequential residual: the MLP reads x + attention</source>
            <translation>顺序残差：MLP 读取 x + 注意力</translation>
        </message>
        <message>
            <source>%1 · %2 · %3</source>
            <translation>%1 · %2 · %3</translation>
        </message>
        <message>
            <source>The MLP's most active neurons (of %1): hover for the arithmetic</source>
            <translation>MLP 中最活跃的神经元（共 %1 个）：悬停查看算式</translation>
        </message>
        <message>
            <source>What each layer adds to the stream at this position (‖·‖)</source>
            <translation>各层在此位置向残差流加入的量（‖·‖）</translation>
        </message>
        <message>
            <source>attention</source>
            <translation>注意力</translation>
        </message>
        <message>
            <source>MLP</source>
            <translation>MLP</translation>
        </message>
        <message>
            <source>layer %1</source>
            <translation>第 %1 层</translation>
        </message>
        <message>
            <source>%1 · %2</source>
            <translation>%1 · %2</translation>
        </message>
        <message>
            <source>After the last layer: the final norm and the next token</source>
            <translation>最后一层之后：最终归一化与下一个词元</translation>
        </message>
        <message>
            <source>%1 %</source>
            <translation>%1 %</translation>
        </message>
        <message>
            <source>neuron %1: silu(gate) · up = silu(%2) · %3 = %4 · %3 = %5
silu(g) = g / (1 + e^−g)</source>
            <translation>神经元 %1：silu(gate) · up = silu(%2) · %3 = %4 · %3 = %5
silu(g) = g / (1 + e^−g)</translation>
        </message>
        <message>
            <source>neuron %1: GELU(up) = GELU(%2) = %3</source>
            <translation>神经元 %1：GELU(up) = GELU(%2) = %3</translation>
        </message>
        <message>
            <source>%1: %2 entries, ‖·‖ = %3</source>
            <translation>%1：%2 个分量，‖·‖ = %3</translation>
        </message>
        <message>
            <source>entry %1 = %2</source>
            <translation>第 %1 个分量 = %2</translation>
        </message>
        <message>
            <source>layer %1 at position %2: attention adds ‖·‖ = %3, the MLP ‖·‖ = %4</source>
            <translation>第 %1 层在位置 %2：注意力加入 ‖·‖ = %3，MLP 加入 ‖·‖ = %4</translation>
        </message>
        <message>
            <source>“%1” (id %2): logit %3, probability %4 %</source>
            <translation>“%1”（id %2）：logit %3，概率 %4 %</translation>
        </message>
    </context>
    <context>
        <name>ui::BlockWidget</name>
        <message>
            <source>Open a model (File › Open Model…) to see the whole transformer block of the shown layer at the selected query: the norms, attention, the MLP and its most active neurons, what each layer adds to the residual stream, and the final norm and logits.</source>
            <translation>用“文件 › 打开模型…”打开一个模型，即可看到所示层在所选查询位置的整个 Transformer 块：归一化、注意力、MLP 及其最活跃的神经元、各层向残差流加入的量，以及最终归一化和 logits。</translation>
        </message>
    </context>
</TS>
