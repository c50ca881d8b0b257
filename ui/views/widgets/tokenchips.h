#pragma once
/** TokenChips: the tokens as a flow of small rounded chips with their 1-based index. */

#include <QList>
#include <QRect>
#include <QStringList>
#include <QWidget>

namespace ui {

class TokenChips : public QWidget {
    Q_OBJECT
public:
    explicit TokenChips(QWidget* parent = nullptr);

    void setTokens(const QStringList& tokens);
    QStringList tokens() const { return m_tokens; }
    /** The model's token ids, one per chip, shown when hovering (a model session); empty: none. */
    void setTokenIds(const QList<int>& ids) { m_ids = ids; }
    QList<int> tokenIds() const { return m_ids; }
    /** The highlighted chip; −1 for none. */
    void setSelected(int index);
    int selected() const { return m_selected; }
    /** Where chip index is drawn (widget coordinates); empty when there is no such chip. */
    QRect chipRect(int index) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    /** A chip was clicked (0-based index). */
    void chipClicked(int index);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct Metrics {
        int padX, padY, gap, height, indexGap, margin;
    };
    Metrics metrics() const;
    /** Measures every chip once (tokens or font changed): layouts for any width are arithmetic after. */
    void measure();
    QList<QRect> layoutFor(int width) const;
    void relayout();
    int chipAt(const QPoint& pos) const;

    QStringList m_tokens;
    QList<int> m_ids;
    QStringList m_display;   ///< each token as drawn: control characters as spaces, long ones elided
    QList<int> m_indexWidths;  ///< width of each chip's index number
    QList<int> m_widths;     ///< width of each chip
    QList<QRect> m_rects;
    int m_selected = -1;
    int m_hovered = -1;
};

}  // namespace ui
