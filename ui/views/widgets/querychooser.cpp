#include "ui/views/widgets/querychooser.h"

#include <QComboBox>
#include <QCoreApplication>

namespace ui {

void syncQueryCombo(QComboBox* combo, const core::Trace* trace, int query)
{
    const int n = trace ? trace->n() : 0;
    // The entries are rebuilt only when the tokens or the language changed: a long sequence has thousands,
    // and a trace comes with every edit. What they were built from is kept on the combo.
    const QString format = QCoreApplication::translate("QueryChooser", "%1 “%2”");
    QByteArray source = format.toUtf8();
    for (int i = 0; i < n; ++i) {
        source += '\0';
        source += trace->model->tokens[std::size_t(i)];
    }
    static const char* const builtFrom = "queryComboSource";
    if (combo->property(builtFrom).toByteArray() != source || combo->count() != n) {
        QStringList tokens;
        tokens.reserve(n);
        for (int i = 0; i < n; ++i)
            tokens << format.arg(i + 1).arg(QString::fromStdString(trace->model->tokens[std::size_t(i)]));
        combo->clear();
        combo->addItems(tokens);
        combo->setProperty(builtFrom, source);
    }
    combo->setCurrentIndex(n > 0 ? std::clamp(query, 0, n - 1) : -1);
}

}  // namespace ui
