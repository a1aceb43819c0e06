use agboss::prelude::*;
#[dto]
pub struct Upload {
    pub file: String,
    pub url: String,
}

/// Uploads a file.
#[tool(
    name = "upload-file-tool",
    allow_paths(field = "file", within = ["srv/reports", "/srv/../../etc"]),
    allow_paths(field = "file", within = ["/srv/exports"]),
    allow_paths(field = "jobs[0].path", within = ["/srv"]),
    allow_urls(field = "url", within = ["uploads.example.com", "https://user@example.com/", 7]),
    allow_urls(field = "url2", within = []),
    allow_urls(field = "url3", within = "https://example.com/"),
)]
pub struct UploadFile;

impl ToolHandler for UploadFile {
    type Input = Upload;
    type Output = Upload;

    async fn run(&self, input: Upload) -> Result<Upload, ToolError> {
        Ok(input)
    }
}

fn main() {}
