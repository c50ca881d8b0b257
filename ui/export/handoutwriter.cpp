#include "handoutwriter.h"

#include "core/formats/numbertext.h"
#include "printpage.h"
#include "ui/render/stepfigure.h"
#include "ui/render/atomicwrite.h"
#include "ui/render/colormap.h"
#include "ui/render/heatmaprenderer.h"
#include "ui/render/stepwording.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QPdfWriter>

#include <memory>
#include <vector>

namespace exports {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Handout {
    Q_DECLARE_TR_FUNCTIONS(Handout)
};

/** Lays out and paints the one page: texts first at their natural height, the heatmaps in what is left. */
class HandoutPainter {
public:
    HandoutPainter(QPdfWriter& writer, const core::Trace& trace, const QString& title, render::ColourRange range)
        : m_writer(writer), m_trace(trace), m_title(title), m_range(range)
    {
        m_area = QRectF(0, 0, m_writer.width(), m_writer.height());
        m_body = m_area.adjusted(0, 0, 0, -footerHeight(&m_writer));
    }

    bool paint()
    {
        const core::AttentionModel& model = *m_trace.model;
        const double width = m_body.width();
        const RichText kicker(Handout::tr("Self-attention on one page").toHtmlEscaped(), printFont(11), ink::accent,
                              width, &m_writer);
        const QString heading =
            QFontMetricsF(printFont(20, true), &m_writer).elidedText(m_title, Qt::ElideRight, width);
        const RichText title(heading.toHtmlEscaped(), printFont(20, true), ink::text, width, &m_writer);
        const RichText tokens = tokenLine();
        const RichText facts(factsText(), printFont(9.5), ink::muted, width, &m_writer);
        const double pad = 10;
        const RichText overall(render::StepWording::overallFormula(model), printFont(15), ink::text,
                               width - 2 * pad - 3, &m_writer);

        // The seven steps: the numbered title on the left, the formula beside it.
        const double titleWidth = 190;
        struct StepLine {
            RichText title;
            RichText formula;
        };
        std::vector<StepLine> steps;
        for (int number = 1; number <= render::StepWording::count; ++number) {
            const render::StepText text = render::StepWording::step(number, model);
            steps.push_back({RichText(richSymbols(render::StepWording::numberedTitle(number, model)),
                                      printFont(10, true), ink::text, titleWidth - 10, &m_writer),
                             RichText(text.formula, printFont(10.5), ink::text, width - titleWidth, &m_writer)});
        }
        const RichText stepsHeading(Handout::tr("The seven steps").toHtmlEscaped(), printFont(12, true), ink::text,
                                    width, &m_writer);
        const QString causal = render::StepWording::step(5, model).note;
        const RichText note(causal.toHtmlEscaped(), printFont(9, false, true), ink::muted, width, &m_writer);

        double stepsHeight = stepsHeading.height() + 6;
        for (const StepLine& line : steps)
            stepsHeight += std::max(line.title.height(), line.formula.height()) + kStepSpacing;
        if (!causal.isEmpty())
            stepsHeight += note.height() + 4;

        const double top = m_body.top();
        double y = top;
        const double kickerTop = y;
        y += kicker.height() + 2;
        const double titleTop = y;
        y += title.height() + 8;
        const double tokensTop = y;
        y += tokens.height() + 4;
        const double factsTop = y;
        y += facts.height() + 12;
        const double boxTop = y;
        const double boxHeight = overall.height() + 2 * pad;
        y += boxHeight + 14;
        const QRectF heatmapArea(m_body.left(), y, width, m_body.bottom() - stepsHeight - 16 - y);
        if (heatmapArea.height() < 120)
            return false;

        if (!m_p.begin(&m_writer))
            return false;
        paintFooter(&m_p, m_area, Handout::tr("Attention Explorer · %1").arg(m_title), QString());
        kicker.paint(&m_p, QPointF(m_body.left(), kickerTop));
        title.paint(&m_p, QPointF(m_body.left(), titleTop));
        tokens.paint(&m_p, QPointF(m_body.left(), tokensTop));
        facts.paint(&m_p, QPointF(m_body.left(), factsTop));
        const QRectF box(m_body.left(), boxTop, width, boxHeight);
        m_p.fillRect(box, ink::tint);
        m_p.fillRect(QRectF(box.left(), box.top(), 3, box.height()), ink::accent);
        overall.paint(&m_p, QPointF(box.left() + pad + 3, box.top() + pad));

        paintHeatmaps(heatmapArea);

        y = heatmapArea.bottom() + 16;
        stepsHeading.paint(&m_p, QPointF(m_body.left(), y));
        y += stepsHeading.height() + 6;
        for (std::size_t k = 0; k < steps.size(); ++k) {
            const StepLine& line = steps[k];
            const double h = std::max(line.title.height(), line.formula.height());
            if (k % 2 == 0)
                m_p.fillRect(QRectF(m_body.left(), y - kStepSpacing / 2, width, h + kStepSpacing), ink::tint);
            line.title.paint(&m_p, QPointF(m_body.left() + 4, y));
            line.formula.paint(&m_p, QPointF(m_body.left() + titleWidth, y));
            y += h + kStepSpacing;
        }
        if (!causal.isEmpty())
            note.paint(&m_p, QPointF(m_body.left(), y + 4));
        return m_p.end();
    }

    /** The cells the log colour range could not place, summed over the heatmaps painted. */
    Eigen::Index belowLogScale() const { return m_belowLogScale; }

private:
    static constexpr double kStepSpacing = 9;
    /** How much larger than its preferred size a heatmap is drawn at most. */
    static constexpr double kMaxHeatmapScale = 2.2;

    /** "Tokens: 1 The · 2 cat · …" in at most three lines: past them, "… and k more". */
    RichText tokenLine() const
    {
        const std::vector<std::string>& all = m_trace.model->tokens;
        const auto line = [&](std::size_t shown) {
            QString text = numberedTokens(all, shown).join(QStringLiteral("   ·   "));
            if (shown < all.size())
                text += Handout::tr("   … and %1 more").arg(all.size() - shown);
            return RichText(QStringLiteral("<b>%1</b>&nbsp;&nbsp; %2")
                                .arg(Handout::tr("Tokens").toHtmlEscaped(), text.toHtmlEscaped()),
                            printFont(10.5), ink::text, m_body.width(), &m_writer);
        };
        const double maxHeight = QFontMetricsF(printFont(10.5), &m_writer).lineSpacing() * 3.5;
        RichText whole = line(all.size());
        if (whole.height() <= maxHeight)
            return whole;
        // The most tokens that, with the count of the rest, fit in three lines.
        std::size_t lo = 0, hi = all.size();
        while (hi - lo > 1) {
            const std::size_t mid = (lo + hi) / 2;
            (line(mid).height() <= maxHeight ? lo : hi) = mid;
        }
        return line(lo);
    }

    /** The shapes and options in one line. */
    QString factsText() const
    {
        const core::AttentionModel& model = *m_trace.model;
        QStringList facts{Handout::tr("n = %1 tokens").arg(model.n()), Handout::tr("d_model = %1").arg(model.dModel()),
                          Handout::tr("d_k = %1").arg(model.dK()), Handout::tr("d_v = %1").arg(model.dV()),
                          Handout::tr("heads h = %1").arg(model.heads())};
        facts << (model.options.scale ? Handout::tr("scores divided by √d_k") : Handout::tr("scores not scaled"));
        if (model.options.temperature != 1.0)
            facts << Handout::tr("temperature %1")
                         .arg(QString::fromStdString(core::formatNumber(model.options.temperature)));
        if (model.options.mask == core::Mask::Causal)
            facts << Handout::tr("causal mask");
        if (model.options.positionalEncoding != core::PositionalEncoding::None)
            facts << render::StepWording::positionsFact(model);
        facts << render::StepWording::headOptionFacts(model);
        return richSymbols(facts.join(QStringLiteral("  ·  ")));
    }

    /** The weights of each head (up to handoutMaxHeads) filling area: in one or two columns, whichever
     *  draws them larger; each centred in its cell, with its value in every cell large enough to hold it. */
    void paintHeatmaps(const QRectF& area)
    {
        const int heads = m_trace.headCount();
        const int shown = std::min(heads, handoutMaxHeads);
        double top = area.top();
        if (shown < heads) {
            const RichText note(
                Handout::tr("The weights of heads 1 to %1 of %2.").arg(shown).arg(heads).toHtmlEscaped(),
                printFont(9, false, true), ink::muted, area.width(), &m_writer);
            note.paint(&m_p, QPointF(area.left(), top));
            top += note.height() + 4;
        }
        render::HeatmapStyle style = printHeatmapStyle(render::defaultColormap(core::Step::Weights), m_range);
        style.annotate = true;
        std::vector<std::unique_ptr<render::HeatmapRenderer>> renderers;
        for (int head = 0; head < shown; ++head)
            renderers.push_back(
                std::make_unique<render::HeatmapRenderer>(ui::heatmapData(m_trace, core::Step::Weights, head), style));
        const QSizeF preferred = renderers.front()->preferredSize();

        const double gap = 12;
        const auto cellFor = [&](int columns) {
            const int rows = (shown + columns - 1) / columns;
            return QSizeF((area.width() - gap * (columns - 1)) / columns,
                          (area.bottom() - top - gap * (rows - 1)) / rows);
        };
        const auto scaleIn = [&](QSizeF cell) {
            return std::min({cell.width() / preferred.width(), cell.height() / preferred.height(), kMaxHeatmapScale});
        };
        const int columns = shown > 1 && scaleIn(cellFor(2)) > scaleIn(cellFor(1)) ? 2 : 1;
        const QSizeF cell = cellFor(columns);
        const QSizeF size = preferred * scaleIn(cell);
        for (int head = 0; head < shown; ++head) {
            const QPointF corner(area.left() + (head % columns) * (cell.width() + gap),
                                 top + (head / columns) * (cell.height() + gap));
            const render::HeatmapRenderer& renderer = *renderers[std::size_t(head)];
            renderer.paint(
                &m_p,
                QRectF(corner + QPointF((cell.width() - size.width()) / 2, (cell.height() - size.height()) / 2), size));
            m_belowLogScale += renderer.colourScale().belowLogScale();
        }
    }

    QPdfWriter& m_writer;
    const core::Trace& m_trace;
    QString m_title;
    render::ColourRange m_range;
    Eigen::Index m_belowLogScale = 0;  ///< belowLogScale() of the heatmaps painted
    QPainter m_p;
    QRectF m_area;
    QRectF m_body;
};

} // namespace

render::ExportResult writeHandout(const core::Trace& trace, const QString& title, QIODevice* device,
                                  render::ColourRange range)
{
    const QString name = title.isEmpty() ? Handout::tr("Self-attention") : title;
    QPdfWriter writer(device);
    setUpPrintPage(writer, name);
    HandoutPainter painter(writer, trace, name, range);
    if (!painter.paint())
        return render::ExportResult::failed(Handout::tr("The handout could not be painted"));
    return {true, QString(), painter.belowLogScale(), QString()};
}

render::ExportResult writeHandout(const core::Trace& trace, const QString& title, const QString& path,
                                  render::ColourRange range)
{
    return render::exportAtomically(path, [&](QIODevice* device) { return writeHandout(trace, title, device, range); });
}

TraceWriter handoutWriter()
{
    return [](const core::Trace& trace, const QString& title, const QString& path, render::ColourRange range) {
        return writeHandout(trace, title, path, range);
    };
}

} // namespace exports
