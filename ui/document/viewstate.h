#pragma once
/** ViewState: what the user is looking at, shared by every view (not saved as part of the maths):
 *  the selected query and head, the step shown in the heatmap, and the cell under the mouse with
 *  the cells it came from. */

#include "core/attention/derivation.h"

#include <QObject>

#include <optional>
#include <vector>

namespace ui {

class ViewState : public QObject {
    Q_OBJECT
public:
    explicit ViewState(QObject* parent = nullptr) : QObject(parent) {}

    int selectedQuery() const { return m_query; }
    int head() const { return m_head; }
    core::Step heatmapStep() const { return m_step; }
    /** The cell under the mouse in any view, if any. */
    std::optional<core::CellRef> hoveredCell() const { return m_hovered; }
    /** The cells, rows and columns the hovered cell came from (its derivation's sources). */
    const std::vector<core::CellRef>& highlighted() const { return m_highlighted; }

    void setSelectedQuery(int query)
    {
        if (query == m_query)
            return;
        m_query = query;
        emit selectedQueryChanged(query);
    }
    void setHead(int head)
    {
        if (head == m_head)
            return;
        m_head = head;
        emit headChanged(head);
    }
    void setHeatmapStep(core::Step step)
    {
        if (step == m_step)
            return;
        m_step = step;
        emit heatmapStepChanged(step);
    }
    /** Sets (or clears, with nothing) the hovered cell and what it came from. */
    void setHovered(std::optional<core::CellRef> cell, std::vector<core::CellRef> sources = {})
    {
        if (cell == m_hovered && sources == m_highlighted)
            return;
        m_hovered = cell;
        m_highlighted = std::move(sources);
        emit hoveredChanged();
    }

signals:
    void selectedQueryChanged(int query);
    void headChanged(int head);
    void heatmapStepChanged(core::Step step);
    void hoveredChanged();

private:
    int m_query = 0;
    int m_head = 0;
    core::Step m_step = core::Step::Weights;
    std::optional<core::CellRef> m_hovered;
    std::vector<core::CellRef> m_highlighted;
};

}  // namespace ui
