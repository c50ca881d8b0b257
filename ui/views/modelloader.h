#pragma once
/** ModelLoader: loads a model session (a checkpoint folder, its text and edits) on a worker while the window
 *  stays live, with a progress bar and Cancel; and what is wrong with a folder that is not a checkpoint. */

#include "ui/document/modelstate.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <optional>

class QWidget;

namespace ui {

class ModelLoader {
    Q_DECLARE_TR_FUNCTIONS(ModelLoader)
public:
    /** Loads session (sessionPath: its file, empty for a folder opened as it is) on a worker; a progress
     *  dialog parented to parent shows while it takes longer than a moment. Nothing when it was refused (error
     *  says why) or cancelled (*cancelled set, error empty). The event loop runs meanwhile. */
    static std::optional<LoadedModel> load(const core::ModelSession& session, const QString& sessionPath,
                                           QWidget* parent, QString* error, bool* cancelled = nullptr);

    /** What a model folder lacks or has wrong, one line each, as far as the files' presence tells: no folder,
     *  no config.json, no model.safetensors (a pickled pytorch_model.bin only), no tokenizer (vocab.json with
     *  merges.txt, or tokenizer.json). Empty when every file is there. */
    static QStringList folderProblems(const QString& folder);

    /** The message box text for a folder that failed to load: the problems listed, then the loader's own. */
    static QString refusal(const QString& folder, const QString& error);
};

}  // namespace ui
