// The first bytes of every format file-type v16 detects: for each MIME type it reports, the shortest head
// it recognises as that type. Taken from file-type's own test fixtures (MIT), except seven it ships none for
// (FLIF, CR2, plain ASF, MPEG-TS, HEIC sequence, glTF binary, MPEG-2 PS), written from its signatures.
// Shared by the specs that cut and corrupt them: the type check must answer every such head with a type or a 415.

/** One format's shortest recognisable head. */
export interface FileHead {
  mimeType: string;
  ext: string;
  head: Buffer;
}

/** [MIME type, extension, head in base64], by MIME type. */
const HEADS: ReadonlyArray<readonly [string, string, string]> = [
  ['application/dicom', 'dcm',
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABESUNN'],
  ['application/eps', 'eps', 'xdDTxg=='],
  ['application/epub+zip', 'epub', 'UEsDBBQAAgAAACuHcERvYassFAAAABQAAAAIAAAAbWltZXR5cGVhcHBsaWNhdGlvbi9lcHViK3ppcA=='],
  ['application/gzip', 'gz', 'H4sI'],
  ['application/mxf', 'mxf', 'Bg4rNAIFAQENAQIBAQI='],
  ['application/ogg', 'ogx', 'T2dnUwACAAAAAAAAAADXOp8jAAAAAFg0y8wBHgFYWFhYWFgb'],
  ['application/pdf', 'pdf', 'JVBERg=='],
  ['application/pgp-encrypted', 'pgp', 'LS0tLS1CRUdJTiBQR1AgTUVTU0FHRS0tLS0t'],
  ['application/postscript', 'ps', 'JSE='],
  ['application/rtf', 'rtf', 'e1xydGY='],
  ['application/vnd.ms-asf', 'asf', 'MCaydY5mzxGm2QCqAGLObAAAAAAAAAAAAAAAAAAA'],
  ['application/vnd.ms-cab-compressed', 'cab', 'TVNDRg=='],
  ['application/vnd.ms-fontobject', 'eot', 'QCAAAIAfAAABAAIAAAAAAAIABgMAAAAAAAABwJABAAAAAExQ'],
  ['application/vnd.ms-htmlhelp', 'chm', 'SVRTRg=='],
  ['application/vnd.oasis.opendocument.presentation', 'odp',
    'UEsDBBQAAAgAALBuckUzJqyoLwAAAC8AAAAIAAAAbWltZXR5cGVhcHBsaWNhdGlvbi92bmQub2FzaXMub3BlbmRvY3VtZW50' +
    'LnByZXNlbnRhdGlvbg=='],
  ['application/vnd.oasis.opendocument.spreadsheet', 'ods',
    'UEsDBBQAAAAAAEJXpjiFbDmKLgAAAC4AAAAIAAAAbWltZXR5cGVhcHBsaWNhdGlvbi92bmQub2FzaXMub3BlbmRvY3VtZW50' +
    'LnNwcmVhZHNoZWV0'],
  ['application/vnd.oasis.opendocument.text', 'odt',
    'UEsDBBQAAAAAANhiKzJexjIMJwAAACcAAAAIAAAAbWltZXR5cGVhcHBsaWNhdGlvbi92bmQub2FzaXMub3BlbmRvY3VtZW50' +
    'LnRleHQ='],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx',
    'UEsDBBQACAgIANxFxVAAAAAAAAAAAAAAAAALAAAAX3JlbHMvLnJlbHOtkk1LAzEQQO/9FSH37myriMhmexGhN5H6A0Iy+4FN' +
    'MkymUv+9YRF0oayCPWby5vEIaXbncFTvyHlM0ehNVWuF0SU/xt7o18PT+l7v2lXzgkcrBcnDSFmVnZiNHkToASC7AYPNVSKM' +
    '5aZLHKyUI/dA1r3ZHmFb13fAPx26nTnV3hvNe7/R6vBB+D83BBTrrVhwiXFNXLZZRsxFbrlHMdon91zGeSKqYtZwOWj796DU' +
    'daPDx+ROAaNc6sKzYPTol5Ms0VLRzTWL3ClLCr880cQsJd1eM2lOfPcQCRBjLsOJ/gpaNTD7nO0nUEsHCO0sDVfoAAAA0wIA' +
    'AFBLAwQUAAgICADcRcVQAAAAAAAAAAAAAAAAEwAAAGRvY1Byb3BzL2N1c3RvbS54bWy1lFFvmzAUhd/3Kyw/rQ8EQ5I2REDV' +
    'QqNNardKSfvuwk2wCrZlu+lQ1f/em1DSddrTFngyNjrf4dzrG5//amqyBWOFkgkNRowSkIUqhdwk9G618GaUWMdlyWslIaEt' +
    'WHqefolvjdJgnABLUEHahFbO6bnv26KChtsRHks8WSvTcIevZuOr9VoUkKviqQHp/JCxU794sk41nj7I0U5vvnX/KlmqYufO' +
    '3q9ajXpp/C7eknXjRJnQl3ya5fmUTb3wKsq8gAWXXjSOzjw2Yyy8DLNFdHH1SonefRxSInmDf36h9X2XE0pu3bzWz9aZNAhH' +
    'DJ/Y/9iK/Z74n+xxz85Uo7lsP4GvxYPhpiVYG/JddqGgObIEs8VM7CCOJr2jb6IsQS5rUe4jRpSYpF0KuDgab3rgYS1NLeSj' +
    'zSouN1B20Ael6nfsfnk08GkPvt4x7/RK5dzBwNCzHnpzk9VCDxnsrEf9UO63Co6PDop60K0Bi3d036SLfbd+auef0rOFAcAG' +
    'rtQz+TqZj08GaeGA9Y6WBa8hQ62ByxoEB2LFzW5aDQ08DK0/Lmj0t/L6H7M8fQNQSwcIWImok60BAAAQBgAAUEsDBBQACAgI' +
    'ANxFxVAAAAAAAAAAAAAAAAARAAAAZG9jUHJvcHMvY29yZS54bWx9Uk1P4zAUvO+viHxP7SS02rVaV2JXnEBCImgRN+M8UkPs' +
    'WPYrpf8e220DrKq9+c2M530u1+9mKN7ABz3aFalmjBRg1dhp26/IfXtV/iRFQGk7OYwWVmQPgazFj6VyXI0ebv3owKOGUEQj' +
    'G7hyK7JBdJzSoDZgZJhFhY3k8+iNxBj6njqpXmUPtGZsQQ2g7CRKmgxLNzmSo2WnJku39UM26BSFAQxYDLSaVfRTi+BNOPsh' +
    'M1+URuPewVnpiZzU70FPwt1uN9s1WRrrr+jDzfVdbrXUNo1KARHLYyFceZAIXREN+CHdifnb/P7TXhFRs6ouWVOyumUNv5jz' +
    '6tfjkv7zPxke3qMXPSDuTdJMUKI7CMprh3GTIpPfgBgP0vbbOHYBtry/y5IJSgsdZMCbuPpnDd3lPnqcwU51mSP238ZqVrJF' +
    'yeZtxfjFgs8XXxo7GeTMHt50ukDR5KRTmKoO26cXUHhoaQriGzUOIG49hHgGMnVZtAnKwgOZ3b7fqfgAUEsHCGpoK4B+AQAA' +
    '8wIAAFBLAwQUAAgICADcRcVQAAAAAAAAAAAAAAAAEAAAAGRvY1Byb3BzL2FwcC54bWydkV9LwzAUxd/9FCHsdU1btI6RZqhD' +
    'EAYOrH/eSkzutmh7E5JsrN/e6FjZs28595787s0JXxz7jhzAB2OxpkWWUwKorDa4relr8zidURKiRC07i1DTAQJdiCu+9taB' +
    'jwYCSQQMNd3F6OaMBbWDXoYstTF1Ntb3Mibpt8xuNkbB0qp9DxhZmecVg2ME1KCnbgTSE3F+iP+Faqt+9wtvzeAST/AGetfJ' +
    'CGJp1LfBYLE9l1oPmrPRwBsbZdeYHsQslUfB75zrjJIx5SRW5tPD899gVmVFdpOVk5XB/bH9mFVtdU0uDG162BeoyIp8cr83' +
    'nZ6WnF3C+Lv1OoiyKjg7Hflaern10u2CuE3uC8kfbO8kDn8rSD+Q9DPkCU+BJBp5AX9IUwNnZ2e6P0YrfgBQSwcI06t1xiwB' +
    'AADwAQAAUEsDBBQACAgIANxFxVAAAAAAAAAAAAAAAAAfAAAAcHB0L19yZWxzL3ByZXNlbnRhdGlvbi54bWwucmVscw=='],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx',
    'UEsDBBQACAgIAKw9slAAAAAAAAAAAAAAAAALAAAAX3JlbHMvLnJlbHOtks9KAzEQh+99ipB7d7YVRGSzvYjQm0h9gJjM/mE3' +
    'mTAZdX17gwhaqaUHj0l+8803Q5rdEmb1ipxHikZvqlorjI78GHujnw736xu9a1fNI85WSiQPY8qq1MRs9CCSbgGyGzDYXFHC' +
    'WF464mClHLmHZN1ke4RtXV8D/2To9oip9t5o3vuNVof3hJewqetGh3fkXgJGOdHiV6KQLfcoRi8zvBFPz0RTVaAaTrtsL3f5' +
    'e04IKNZbseCIcZ24VLOMmL91PLmHcp0/E+eErv5zObgIRo/+vJJN6cto1cDRJ2g/AFBLBwhmqoK34AAAADsCAABQSwMEFAAI' +
    'CAgArD2yUAAAAAAAAAAAAAAAABAAAABkb2NQcm9wcy9hcHAueG1snZBPb8IwDMXv+xRVtCtNgNIWlAZNmnbaxKR1E7fKJC5k' +
    'av6oyRB8+2WbBJx38/Ozfs82X5/MkB1xDNrZhkxzRjK00ilt9w15b58mNclCBKtgcBYbcsZA1uKOv47O4xg1hiwRbGjIIUa/' +
    'ojTIAxoIebJtcno3GohJjnvq+l5LfHTyy6CNdMZYSfEU0SpUE38Bkj/i6hj/C1VO/uwXPtqzTzzBWzR+gIiC02vZughDqw2K' +
    '+Tz1L4o/eD9oCTG9RDzr3Yib3wxa5iyv8vn9C8jN27bb1mVXFtnNRJeO+EQZqZL1EqCCJcKuV3VRQz8tSrVgdcmqChDVDLCA' +
    'Bae3WZxevyq+AVBLBwgDY5hUAwEAAJoBAABQSwMEFAAICAgArD2yUAAAAAAAAAAAAAAAABEAAABkb2NQcm9wcy9jb3JlLnht' +
    'bI1SXU+DMBR991eQvkOBiZkNsPiRPbnERIzGt9resSqUpu2G+/cWGGzqHny7557Tc7+aLr7qytuBNqKRGYqCEHkgWcOFLDP0' +
    'XCz9OfKMpZLTqpGQoT0YtMgvUqYIazQ86kaBtgKM54ykIUxlaGOtIhgbtoGamsAppCPXja6pdVCXWFH2SUvAcRhe4Ros5dRS' +
    '3Bn6anJEB0vOJku11VVvwBmGCmqQ1uAoiPBRa0HX5uyDnjlR1sLuFZyVjuSk/jJiErZtG7SzXur6j/Dr6uGpH9UXslsVA5Sn' +
    'h0YI00AtcM8ZkKHcyLzM7u6LJcrjMA79MPGjeRFekygiyfwtxb/ed4ZD3Oi8Y4/AxRwM00JZd8OB/JFwuKKy3LqF5xz8m6KX' +
    'TKnulBU1duWOvhbAb/fO40xu7Kg+5P490mVC4uRkpNGgr6xhJ7q/l0d90Ql2XZvt+wcwO4w0ARdbYSsY0mP45z/m31BLBwha' +
    'dvOKYgEAANsCAABQSwMEFAAICAgArD2yUAAAAAAAAAAAAAAAABQAAAB4bC9zaGFyZWRTdHJpbmdzLnhtbA=='],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx', 'UEsDBBQACAgIAJZ7PkoAAAAAAAAAAAAAAAASAAAAd29yZC9udW1iZXJpbmcueG1s'],
  ['application/vnd.sketchup.skp', 'skp', '//7/DlMAawBlAHQAYwBoAFUAcAAgAE0AbwBkAGUAbA=='],
  ['application/vnd.tcpdump.pcap', 'pcap', 'obLD1A=='],
  ['application/wasm', 'wasm', 'AGFzbQ=='],
  ['application/x-7z-compressed', '7z', 'N3q8rycc'],
  ['application/x-apache-arrow', 'arrow', 'QVJST1cx'],
  ['application/x-apple-diskimage', 'dmg', 'eAE='],
  ['application/x-asar', 'asar', 'BAAAADwAAAA4AAAAMQAAAHsiZmlsZXMiOnsic2FtcGxlLnR4dCI6eyJzaXplIjoxMSwib2Zmc2V0IjoiMCJ9fX0='],
  ['application/x-blender', 'blend', 'QkxFTkRFUg=='],
  ['application/x-bzip2', 'bz2', 'Qlpo'],
  ['application/x-cfb', 'cfb', '0M8R4KGxGuE='],
  ['application/x-compress', 'Z', 'H50='],
  ['application/x-deb', 'deb', 'ITxhcmNoPgpkZWJpYW4tYmluYXJ5'],
  ['application/x-esri-shape', 'shp', 'AAAnCg=='],
  ['application/x-google-chrome-extension', 'crx', 'Q3IyNA=='],
  ['application/x-indesign', 'indd', 'Bgbt9dgdRuW9Me/n/nS3HQ=='],
  ['application/x-lzh-compressed', 'lzh', 'JrYtbGg1LQ=='],
  ['application/x-lzip', 'lz', 'TFpJUA=='],
  ['application/x-mie', 'mie', 'fhAE/jBNSUU='],
  ['application/x-mobipocket-ebook', 'mobi', 'TWV0YW1vcnBob3NpcwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWdMuu1nTLrwAAAAAAAAAAAAAAAAAAAAAQk9PS01PQkk='],
  ['application/x-msdownload', 'exe', 'TVo='],
  ['application/x-nintendo-nes-rom', 'nes', 'TkVTGg=='],
  ['application/x-rar-compressed', 'rar', 'UmFyIRoH'],
  ['application/x-rpm', 'rpm', '7avu2w=='],
  ['application/x-shockwave-flash', 'swf', 'RldT'],
  ['application/x-sqlite3', 'sqlite', 'U1FMaQ=='],
  ['application/x-tar', 'tar',
    'cHJvY19tb2R1bGUueG1sAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADEwMDYwMCAAICAgICAwIAAgICAgIDAgACAgMTQwNDMzMDczIDEzNzA2NTc0' +
    'MTYxICAxMjQxMCAAMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB1c3RhcgAwMHJvb3QAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAcm9vdA=='],
  ['application/x-unix-archive', 'ar', 'ITxhcmNoPgpmaXh0dXJlLnhwaSAg'],
  ['application/x-xpinstall', 'xpi', 'UEsDBBQAAAAIAJsgCkdz2pAU7AwAAEoQAAAUAAAATUVUQS1JTkYvbW96aWxsYS5yc2E='],
  ['application/x-xz', 'xz', '/Td6WFo='],
  ['application/x.apple.alias', 'alias', 'Ym9vawAAAABtYXJr'],
  ['application/x.ms.shortcut', 'lnk', 'TAAAAAEUAgAAAAAAwAAAAAAAAEY='],
  ['application/xml', 'xml', 'PD94bWwg'],
  ['application/zip', 'zip', 'UEsDBA=='],
  ['application/zstd', 'zst', 'KLUv/Q=='],
  ['audio/aac', 'aac', '//k='],
  ['audio/aiff', 'aif', 'Rk9STQ=='],
  ['audio/amr', 'amr', 'IyFBTVI='],
  ['audio/ape', 'ape', 'TUFDIA=='],
  ['audio/midi', 'mid', 'TVRoZA=='],
  ['audio/mp4', 'f4a', 'AAAADGZ0eXBGNEE='],
  ['audio/mpeg', 'mp3', '/+M='],
  ['audio/ogg', 'oga', 'T2dnUwACAAAAAAAAAADQPy5vAAAAABCvuUUBM39GTEFDAQAA'],
  ['audio/opus', 'opus', 'T2dnUwACAAAAAAAAAABw1NM1AAAAAInoVYgBE09wdXNIZWFk'],
  ['audio/qcelp', 'qcp', 'UklGRsDPAABRTENN'],
  ['audio/vnd.dolby.dd-raw', 'ac3', 'C3c='],
  ['audio/vnd.wave', 'wav', 'UklGRjSmAQBXQVZF'],
  ['audio/wavpack', 'wv', 'd3Zwaw=='],
  ['audio/x-dsf', 'dsf', 'RFNEIA=='],
  ['audio/x-flac', 'flac', 'ZkxhQw=='],
  ['audio/x-it', 'it', 'SU1QTQ=='],
  ['audio/x-m4a', 'm4a', 'AAAAGGZ0eXBNNEE='],
  ['audio/x-ms-asf', 'asf',
    'MCaydY5mzxGm2QCqAGLObLECAAAAAAAABgAAAAECodyrjEepzxGO5ADADCBTZWgAAAAAAAAAj0z10CqZ1BGb5QAA6IbdBL0u' +
    'AgAAAAAAACvqDDotwAGWAAAAAAAAAKAtiRIAAAAAkJHgEQAAAABHDQAAAAAAAAIAAACzAwAAswMAAACUAAC1A79fLqnPEY7j' +
    'AMAMIFNlLgAAAAAAAAAR0tOruqnPEY7mAMAMIFNlBgAAAAAAkQfct7epzxGO5gDADCBTZXIAAAAAAAAAQJ5p+E1bzxGo/QCA' +
    'X1xEKw=='],
  ['audio/x-musepack', 'mpc', 'TVAr'],
  ['audio/x-s3m', 's3m', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABoQAAACAAEAAQAAAChRAgBTQ1JN'],
  ['audio/x-voc', 'voc', 'Q3JlYXRpdmUgVm9pY2UgRmlsZQ=='],
  ['audio/x-xm', 'xm', 'RXh0ZW5kZWQgTW9kdWxlOg=='],
  ['font/otf', 'otf', 'T1RUTw=='],
  ['font/ttf', 'ttf', 'AAE='],
  ['font/woff', 'woff', 'd09GRgAB'],
  ['font/woff2', 'woff2', 'd09GMgAB'],
  ['image/apng', 'apng', 'iVBORw0KGgoAAAANSUhEUgAAAGQAAABkCAYAAABw4pVUAAAACGFjVEwA'],
  ['image/avif', 'avif', 'AAAAIGZ0eXBhdmlm'],
  ['image/bmp', 'bmp', 'Qk0='],
  ['image/bpg', 'bpg', 'QlBH+w=='],
  ['image/flif', 'flif', 'RkxJRg=='],
  ['image/gif', 'gif', 'R0lG'],
  ['image/heic', 'heic', 'AAAAGGZ0eXBoZWlj'],
  ['image/heic-sequence', 'heic', 'AAAAGGZ0eXBoZXZj'],
  ['image/heif', 'heic', 'AAAAHGZ0eXBtaWYx'],
  ['image/heif-sequence', 'heic', 'AAAAGGZ0eXBtc2Yx'],
  ['image/icns', 'icns', 'aWNucw=='],
  ['image/jp2', 'jp2', 'AAAADGpQICANCocKAAAAFGZ0eXBqcDIg'],
  ['image/jpeg', 'jpg', '/9j/'],
  ['image/jpm', 'jpm', 'AAAADGpQICANCocKAAAAFGZ0eXBqcG0g'],
  ['image/jpx', 'jpx', 'AAAADGpQICANCocKAAAAHGZ0eXBqcHgg'],
  ['image/jxl', 'jxl', '/wo='],
  ['image/ktx', 'ktx', 'q0tUWCAxMbsNChoK'],
  ['image/mj2', 'mj2', 'AAAADGpQICANCocKAAAAGGZ0eXBtanAy'],
  ['image/png', 'png', 'iVBORw0KGgoAAAANSUhEUg=='],
  ['image/tiff', 'tif', 'TU0AKg=='],
  ['image/vnd.adobe.photoshop', 'psd', 'OEJQUw=='],
  ['image/vnd.ms-photo', 'jxr', 'SUm8'],
  ['image/webp', 'webp', 'UklGRpgXAABXRUJQ'],
  ['image/x-adobe-dng', 'dng', 'SUkqAAgAAAAtAP4='],
  ['image/x-canon-cr2', 'cr2', 'SUkqABAAAABDUg=='],
  ['image/x-canon-cr3', 'cr3', 'AAAAGGZ0eXBjcng='],
  ['image/x-fujifilm-raf', 'raf', 'RlVKSUZJTE1DQ0QtUkFX'],
  ['image/x-icon', 'cur', 'AAAC'],
  ['image/x-nikon-nef', 'nef', 'SUkqADA9cgEcAP4='],
  ['image/x-olympus-orf', 'orf', 'SUlSTwgAAAAY'],
  ['image/x-panasonic-rw2', 'rw2', 'SUlVABgAAACI53TY'],
  ['image/x-sony-arw', 'arw', 'SUkqABD7hgETAP4ABAABAAAAAQAAAAMB'],
  ['image/x-xcf', 'xcf', 'Z2ltcCB4Y2Yg'],
  ['model/3mf', '3mf',
    'UEsDBBQACAgIAKVILU0AAAAAAAAAAAAAAAALAAAAX3JlbHMvLnJlbHNlj8kKwjAQhl8lzN1Ma0FEmvYiglepDxCS6YLNQpKK' +
    'vr1RECxeBoaZ71/q9mFmdqcQJ2cFlLwARlY5PdlBwLU7bfbQNvWFZpnyRxwnH1lGbBQwpuQPiFGNZGTkzpPNl94FI1New4Be' +
    'qpscCLdFscPwqwFrTdbJMFASgNURK22cppl/JrCzFpDZHKx7evqzNZMKLro+ceXMm5V26aVKS8gVsnNZYVF+NYFhU+OqTfMC' +
    'UEsHCNj3V2yvAAAAAwEAAFBLAwQUAAgICACxSC1NAAAAAAAAAAAAAAAAEAAAADNELzNkbW9kZWwubW9kZWw='],
  ['model/gltf-binary', 'glb', 'Z2xURgIAAAA='],
  ['model/stl', 'stl', 'c29saWQg'],
  ['text/calendar', 'ics', 'QkVHSU46VkNBTEVOREFS'],
  ['text/vcard', 'vcf', 'QkVHSU46VkNBUkQ='],
  ['video/3gpp', '3gp', 'AAAAHGZ0eXAzZw=='],
  ['video/3gpp2', '3g2', 'AAAADGZ0eXAzZzI='],
  ['video/MP1S', 'mpg', 'AAABuiE='],
  ['video/MP2P', 'mpg', 'AAABukQ='],
  ['video/mp2t', 'mts',
    'AAAAAEcAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEc='],
  ['video/mp4', 'mp4', 'AAAAHGZ0eXBk'],
  ['video/mpeg', 'mpg', 'AAABsw=='],
  ['video/ogg', 'ogm', 'T2dnUwACAAAAAAAAAAAAAAAAAAAAADOs+BQBOQF2aWRlbwAA'],
  ['video/quicktime', 'mov', 'AAsqAG1kYXQ='],
  ['video/vnd.avi', 'avi', 'UklGRtjMAABBVkk='],
  ['video/webm', 'webm', 'GkXfowEAAAAAAAAfQoaBAUL3gQFC8oEEQvOBCEKChHdlYm0='],
  ['video/x-flv', 'flv', 'RkxWAQ=='],
  ['video/x-m4v', 'm4v', 'AAAAHGZ0eXBNNFY='],
  ['video/x-matroska', 'mkv', 'GkXfo5NCgohtYXRyb3NrYQ=='],
  ['video/x-ms-asf', 'asf',
    'MCaydY5mzxGm2QCqAGLObCMDAAAAAAAABgAAAAECodyrjEepzxGO5ADADCBTZWgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACu/' +
    'AAAAAAAAAIA+1d6xnQEPAAAAAAAAAIAP5wEAAAAAwAkOAAAAAAAcDAAAAAAAAAIAAACADAAAgAwAAEABBQC1A79fLqnPEY7j' +
    'AMAMIFNlLgAAAAAAAAAR0tOruqnPEY7mAMAMIFNlBgAAAAAAQKTQ0gfj0hGX8ACgyV6oUP4AAAAAAAAABAAYAG0AYQBqAG8A' +
    'cgBfAGIAcgBhAG4AZAAAAAAACgBNADQAVgAgAAAAHABtAGkAbgBvAHIAXwB2AGUAcgBzAGkAbwBuAAAAAAAEADEAAAAkAGMA' +
    'bwBtAHAAYQB0AGkAYgBsAGUAXwBiAHIAYQBuAGQAcwAAAAAAIgBNADQAVgAgAE0ANABBACAAbQBwADQAMgBpAHMAbwBtAAAA' +
    'KABXAE0ALwBFAG4AYwBvAGQAaQBuAGcAUwBlAHQAdABpAG4AZwBzAAAAAAAcAEwAYQB2AGYANQA2AC4AMQA1AC4AMQAwADIA' +
    'AACRB9y3t6nPEY7mAMAMIFNlhQAAAAAAAADA7xm8TVvPEaj9AIBfXEQr'],
];

export const FILE_HEADS: readonly FileHead[] = HEADS.map(([mimeType, ext, base64]) => ({ mimeType, ext, head: Buffer.from(base64, 'base64') }));

/** A Matroska head from file-type's corrupt fixture: an element length its parser cannot read (a RangeError, not End-Of-Stream). */
export const CORRUPT_MATROSKA: FileHead = { mimeType: 'video/x-matroska', ext: 'mkv', head: Buffer.from('GkXfowEAAAAAAAAjAIaBAUL3gQFC8g==', 'base64') };

/** One upload body made from a head. */
export interface HeadVariant {
  name: string;
  bytes: Buffer;
}

/**
 * `file`'s head cut at each length in `cuts` (those shorter than it, and not empty), then whole, then corrupt:
 * followed by 32 0xff bytes, and with every byte after the fourth inverted.
 */
export function variantsOf(file: FileHead, cuts: readonly number[]): HeadVariant[] {
  const { head } = file;
  const lengths = [...new Set(cuts)].filter((n) => n > 0 && n < head.length).sort((a, b) => a - b);
  const inverted = Buffer.from(head.map((byte, i) => (i < Math.min(4, head.length - 1) ? byte : byte ^ 0xff)));
  return [
    ...lengths.map((n) => ({ name: `${file.ext} cut at ${n} of ${head.length}`, bytes: head.subarray(0, n) })),
    { name: `${file.ext} whole head`, bytes: head },
    { name: `${file.ext} + 0xff`, bytes: Buffer.concat([head, Buffer.alloc(32, 0xff)]) },
    { name: `${file.ext} inverted after byte 4`, bytes: inverted },
  ];
}
