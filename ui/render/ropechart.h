#pragma once
/** RopeChartPainter: what rotary positions do, in one picture. For one head's query q and key k as they were before
 *  the turn, the score q′·k′ when the query stands 0, 1, 2 … tokens after the key (core::scoreByDistance), with
 *  the pair's real distance marked. Paints the steps panel's chart and the report's. */

#include "core/attention/trace.h"

#include <QFont>
#include <QPalette>
#include <QRectF>
#include <QSize>
#include <QString>

#include <vector>

class QPainter;

namespace render {

struct RopeChartData {
    std::vector<double> scores;  ///< scores[Δ]: the query Δ tokens after the key
    int query = 0, key = 0;      ///< the pair, 0-based; the real distance is query − key
    QString caption;             ///< "q of query 3 “cat” · k of key 1 “the”" (plain text)
};

/** The chart of the query's strongest key (the one it gives the most weight, itself on a tie) in head `head`,
 *  over distances 0 … max(64, n) − 1 (at most 1024); empty scores without rotary positions. */
RopeChartData ropeChartData(const core::Trace& trace, int head, int query);

struct RopeChartStyle {
    QFont font;
    QPalette palette;
};

class RopeChartPainter {
public:
    RopeChartPainter(RopeChartData data, RopeChartStyle style);

    const RopeChartData& data() const { return m_data; }
    QSize preferredSize() const;
    void paint(QPainter* painter, const QRectF& target) const;

private:
    RopeChartData m_data;
    RopeChartStyle m_style;
};

}  // namespace render
